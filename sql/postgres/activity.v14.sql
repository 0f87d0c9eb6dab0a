-- One wait-profile sample: active client sessions and how many of them wait on IO right now
-- (our own session excluded). Other roles' wait events are visible only with
-- pg_read_all_stats; without it they count as active but never as waiting.
SELECT /* advisor:activity */
       count(*) FILTER (WHERE state = 'active') AS active,
       count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'IO') AS io_waiting
  FROM pg_stat_activity
 WHERE backend_type = 'client backend'
   AND pid <> pg_backend_pid()
