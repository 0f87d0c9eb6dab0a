-- What fills the fast recovery area, in percent of its limit (11.2+ name).
select /* advisor:recovery_area_usage */ file_type, percent_space_used, percent_space_reclaimable, number_of_files
  from v$recovery_area_usage;
