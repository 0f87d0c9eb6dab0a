-- What the session may see: data_directory needs pg_read_all_settings, other sessions' wait
-- events need pg_read_all_stats, pg_ls_tmpdir/pg_ls_waldir need pg_monitor (or an explicit
-- EXECUTE grant). All three come with pg_monitor; see docs/privileges-postgres.md.
SELECT /* advisor:privileges */
       current_user AS role_name,
       (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS is_superuser,
       pg_has_role(current_user, 'pg_monitor', 'USAGE') AS has_monitor,
       pg_has_role(current_user, 'pg_read_all_settings', 'USAGE') AS read_all_settings,
       pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS read_all_stats,
       has_function_privilege('pg_ls_tmpdir(oid)', 'EXECUTE') AS can_ls_tmpdir,
       has_function_privilege('pg_ls_waldir()', 'EXECUTE') AS can_ls_waldir
