-- Online redo log groups per thread (one thread per RAC instance): size and state.
select /* advisor:log */ group# as group_no, thread# as thread_no, sequence# as sequence_no, bytes,
       members, archived, status
  from v$log;
