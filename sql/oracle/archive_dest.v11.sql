-- Archive log destinations: where archived redo is written (local paths only are placed).
select /* advisor:archive_dest */ dest_id, dest_name, status, target, destination
  from v$archive_dest;
