-- pg_stat_io (18+). Changed from 16: reads/writes/extends count operations (one may span
-- several blocks), op_bytes is gone and read_bytes/write_bytes/extend_bytes (numeric) give the
-- volume; object 'wal' (and context 'init') carries WAL IO, which left pg_stat_wal.
SELECT /* advisor:io */
       backend_type, object, context,
       reads, read_bytes::bigint AS read_bytes, read_time,
       writes, write_bytes::bigint AS write_bytes, write_time,
       writebacks, writeback_time,
       extends, extend_bytes::bigint AS extend_bytes, extend_time,
       hits, evictions, reuses, fsyncs, fsync_time,
       'operations' AS count_unit,
       stats_reset
  FROM pg_stat_io
 ORDER BY backend_type, object, context
