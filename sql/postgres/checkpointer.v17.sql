-- Checkpoint counters moved to pg_stat_checkpointer in 17 (renamed: num_timed, num_requested,
-- write_time, sync_time, buffers_written); buffers_backend(_fsync) were dropped (see
-- pg_stat_io client backend writes/fsyncs instead).
SELECT /* advisor:checkpointer */
       c.num_timed, c.num_requested, c.write_time, c.sync_time, c.buffers_written,
       b.buffers_clean, b.maxwritten_clean,
       NULL::bigint AS buffers_backend, NULL::bigint AS buffers_backend_fsync, b.buffers_alloc,
       c.stats_reset AS checkpointer_reset, b.stats_reset AS bgwriter_reset
  FROM pg_stat_checkpointer c, pg_stat_bgwriter b
