-- Online redo log members (paths); STANDBY members are not written by the primary.
select /* advisor:logfile */ group# as group_no, status, type, member, is_recovery_dest_file
  from v$logfile;
