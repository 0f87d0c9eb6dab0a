-- Same as v11, plus CON_ID (12.1+ multitenant).
select /* advisor:tempfile */ file# as file_no, creation_change# as creation_change, ts# as ts_no, name, bytes,
       block_size, status, con_id
  from v$tempfile;
