-- Parameters that decide how figures are read: TIMED_STATISTICS (times are 0 when FALSE),
-- the default block size, and where the fast recovery area lives.
select /* advisor:parameter */ name, value
  from v$parameter
 where name in ('timed_statistics', 'statistics_level', 'db_block_size',
                'db_recovery_file_dest', 'db_recovery_file_dest_size');
