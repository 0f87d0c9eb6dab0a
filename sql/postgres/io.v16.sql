-- pg_stat_io (16, 17): reads/writes/extends count blocks of op_bytes (always BLCKSZ); bytes
-- are derived as count * op_bytes so the row has the same shape as on 18. No tablespace or
-- device dimension: used for what kind of IO happens, never attributed to a relation.
SELECT /* advisor:io */
       backend_type, object, context,
       reads, reads * op_bytes AS read_bytes, read_time,
       writes, writes * op_bytes AS write_bytes, write_time,
       writebacks, writeback_time,
       extends, extends * op_bytes AS extend_bytes, extend_time,
       hits, evictions, reuses, fsyncs, fsync_time,
       'blocks' AS count_unit,
       stats_reset
  FROM pg_stat_io
 ORDER BY backend_type, object, context
