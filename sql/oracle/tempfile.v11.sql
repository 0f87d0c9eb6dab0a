-- Temp file inventory: path, size, block size.
select /* advisor:tempfile */ file# as file_no, creation_change# as creation_change, ts# as ts_no, name, bytes,
       block_size, status
  from v$tempfile;
