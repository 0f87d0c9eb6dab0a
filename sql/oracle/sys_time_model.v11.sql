-- DB time and DB CPU per instance, in microseconds: the denominator of the IO share.
select /* advisor:sys_time_model */ inst_id, stat_name, value
  from gv$sys_time_model
 where stat_name in ('DB time', 'DB CPU');
