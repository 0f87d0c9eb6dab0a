-- Same as v11, plus CON_ID (12.1+ multitenant).
select /* advisor:iostat_file */ inst_id, file_no, filetype_id, filetype_name, small_read_megabytes, small_write_megabytes,
       large_read_megabytes, large_write_megabytes, small_read_reqs, small_write_reqs,
       small_sync_read_reqs, large_read_reqs, large_write_reqs, small_read_servicetime,
       small_write_servicetime, small_sync_read_latency, large_read_servicetime,
       large_write_servicetime, con_id
  from gv$iostat_file;
