-- Data file inventory: path, size, block size; CREATION_CHANGE# tells a reused FILE# apart.
select /* advisor:datafile */ file# as file_no, creation_change# as creation_change, ts# as ts_no, name, bytes,
       block_size, status
  from v$datafile;
