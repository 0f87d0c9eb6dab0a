-- Same as v11, plus CON_ID (12.1+ multitenant).
select /* advisor:filestat */ inst_id, file# as file_no, phyrds, phywrts, phyblkrd, phyblkwrt, singleblkrds,
       readtim, writetim, singleblkrdtim, con_id
  from gv$filestat;
