-- Container names by CON_ID (12.1+ multitenant); FileIO.container takes the name.
select /* advisor:containers */ con_id, name, open_mode
  from v$containers;
