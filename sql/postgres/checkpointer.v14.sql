-- Checkpoint and background-writer counters (pg_stat_bgwriter, 14-16), with the 17 names.
SELECT /* advisor:checkpointer */
       checkpoints_timed AS num_timed, checkpoints_req AS num_requested,
       checkpoint_write_time AS write_time, checkpoint_sync_time AS sync_time,
       buffers_checkpoint AS buffers_written, buffers_clean, maxwritten_clean,
       buffers_backend, buffers_backend_fsync, buffers_alloc,
       stats_reset AS checkpointer_reset, stats_reset AS bgwriter_reset
  FROM pg_stat_bgwriter
