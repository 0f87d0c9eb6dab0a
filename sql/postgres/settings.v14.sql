-- Settings that decide paths and whether times can be trusted. data_directory is hidden from
-- pg_settings without pg_read_all_settings (the collector then names the grant).
-- archive_library exists from 15; on 14 the row is simply absent.
SELECT /* advisor:settings */ name, setting, unit
  FROM pg_settings
 WHERE name = ANY(%(names)s)
 ORDER BY name
