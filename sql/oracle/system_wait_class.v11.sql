-- Wait time per class (centiseconds); the foreground part (_FG) is inside DB time.
select /* advisor:system_wait_class */ inst_id, wait_class, total_waits, time_waited, total_waits_fg, time_waited_fg
  from gv$system_wait_class;
