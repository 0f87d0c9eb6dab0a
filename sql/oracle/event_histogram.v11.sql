-- Latency histograms of the read, redo and commit events (bucket upper bound in ms).
select /* advisor:event_histogram */ inst_id, event, wait_time_milli, wait_count
  from gv$event_histogram
 where event in ('db file sequential read', 'db file scattered read', 'direct path read',
                 'direct path read temp', 'log file sync', 'log file parallel write');
