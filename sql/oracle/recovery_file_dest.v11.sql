-- The fast recovery area: location, limit and space used (bytes).
select /* advisor:recovery_file_dest */ name, space_limit, space_used, space_reclaimable, number_of_files
  from v$recovery_file_dest;
