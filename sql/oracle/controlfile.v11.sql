-- Control file copies (multiplexed copies each receive every write).
select /* advisor:controlfile */ name, status, is_recovery_dest_file, block_size, file_size_blks
  from v$controlfile;
