-- WAL volume (pg_stat_wal) and WAL IO (pg_stat_io object 'wal', 18+). Changed from 14:
-- wal_write/wal_sync and their times moved to pg_stat_io, which also counts bytes written
-- (including new-segment zero fill, context 'init') and WAL reads (walsender, startup).
SELECT /* advisor:wal */
       w.wal_records, w.wal_fpi, w.wal_bytes::bigint AS wal_bytes, w.wal_buffers_full,
       io.writes AS wal_write, io.fsyncs AS wal_sync, io.write_time AS wal_write_time,
       io.fsync_time AS wal_sync_time, io.write_bytes AS wal_write_bytes,
       io.reads AS wal_reads, io.read_bytes AS wal_read_bytes, io.read_time AS wal_read_time,
       w.stats_reset
  FROM pg_stat_wal w,
       (SELECT sum(COALESCE(writes, 0))::bigint AS writes,
               sum(COALESCE(fsyncs, 0))::bigint AS fsyncs,
               sum(COALESCE(write_time, 0))::float8 AS write_time,
               sum(COALESCE(fsync_time, 0))::float8 AS fsync_time,
               sum(COALESCE(write_bytes, 0))::bigint AS write_bytes,
               sum(COALESCE(reads, 0))::bigint AS reads,
               sum(COALESCE(read_bytes, 0))::bigint AS read_bytes,
               sum(COALESCE(read_time, 0))::float8 AS read_time
          FROM pg_stat_io WHERE object = 'wal') io
