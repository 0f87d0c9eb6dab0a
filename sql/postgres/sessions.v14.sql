-- The server's processes during the interval, sampled with the wait profile: a block-layer
-- trace names the pid that issued each request, and this names the pid (its database and
-- what it is). Only pid, database and backend type are read: never a user, an address or a
-- query. Every role sees these columns of every row.
SELECT /* advisor:sessions */
       pid,
       datname,
       backend_type
  FROM pg_stat_activity
 WHERE pid <> pg_backend_pid()
