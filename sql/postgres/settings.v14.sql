-- Settings that decide paths and whether times can be trusted. data_directory is hidden from
-- pg_settings without pg_read_all_settings (the collector then names the grant).
-- archive_library exists from 15; on 14 the row is simply absent.
-- Parameter names: archive_command, archive_library, archive_mode, basic_archive.archive_directory,
-- block_size, data_directory, default_tablespace, io_method, max_wal_size, segment_size,
-- stats_fetch_consistency, temp_tablespaces, track_counts, track_io_timing, track_wal_io_timing,
-- wal_keep_size, wal_segment_size. max_wal_size and wal_keep_size bound what pg_wal holds (a plan
-- sizes the WAL's partition for them).
SELECT /* advisor:settings */ name, setting, unit
  FROM pg_settings
 WHERE name = ANY(%(names)s)
 ORDER BY name
