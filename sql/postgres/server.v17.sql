-- Who the server is and the clocks that reveal resets, restarts and failovers (reference §4.5).
-- Changed from 16: checkpoint counters moved to pg_stat_checkpointer, which has its own reset.
SELECT /* advisor:server */
       current_setting('server_version') AS server_version,
       current_setting('server_version_num')::int AS server_version_num,
       (SELECT system_identifier FROM pg_control_system())::text AS system_identifier,
       (SELECT catalog_version_no FROM pg_control_system()) AS catalog_version,
       pg_postmaster_start_time() AS postmaster_start,
       pg_is_in_recovery() AS in_recovery,
       clock_timestamp() AS now,
       current_database() AS current_db,
       current_user AS current_role,
       host(inet_server_addr()) AS server_addr,
       (SELECT max(stats_reset) FROM pg_stat_io) AS io_reset,
       (SELECT stats_reset FROM pg_stat_wal) AS wal_reset,
       (SELECT stats_reset FROM pg_stat_archiver) AS archiver_reset,
       (SELECT stats_reset FROM pg_stat_bgwriter) AS bgwriter_reset,
       (SELECT stats_reset FROM pg_stat_checkpointer) AS checkpointer_reset
