-- WAL volume and its write/sync calls (pg_stat_wal, 14-17). Times need track_wal_io_timing.
-- wal_bytes is WAL generated; written bytes are not counted separately before 18.
SELECT /* advisor:wal */
       wal_records, wal_fpi, wal_bytes::bigint AS wal_bytes, wal_buffers_full,
       wal_write, wal_sync, wal_write_time, wal_sync_time,
       NULL::bigint AS wal_write_bytes,
       NULL::bigint AS wal_reads,
       NULL::bigint AS wal_read_bytes,
       NULL::float8 AS wal_read_time,
       stats_reset
  FROM pg_stat_wal
