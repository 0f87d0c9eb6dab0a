-- WAL archiving progress (pg_stat_archiver, unchanged 14-18). The archiver's own IO is in no
-- statistics view: archived_count * wal_segment_size is the volume written to the archive.
SELECT /* advisor:archiver */
       archived_count, last_archived_wal, last_archived_time,
       failed_count, last_failed_wal, last_failed_time, stats_reset
  FROM pg_stat_archiver
