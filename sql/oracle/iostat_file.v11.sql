-- IO by file type (11.1+): per file for data and temp files, one consolidated row per
-- type for redo (Log File), Archive Log, Control File, Flashback Log and backups.
-- Megabytes and service times in milliseconds, cumulative since startup.
select /* advisor:iostat_file */ inst_id, file_no, filetype_id, filetype_name, small_read_megabytes, small_write_megabytes,
       large_read_megabytes, large_write_megabytes, small_read_reqs, small_write_reqs,
       small_sync_read_reqs, large_read_reqs, large_write_reqs, small_read_servicetime,
       small_write_servicetime, small_sync_read_latency, large_read_servicetime,
       large_write_servicetime
  from gv$iostat_file;
