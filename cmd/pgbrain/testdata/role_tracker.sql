-- Test-only: records which roles read brain.config (see roles_test.go).
CREATE TABLE public.pgbrain_test_roles_seen (role name PRIMARY KEY);
CREATE FUNCTION public.pgbrain_test_role_seen(r name) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
	IF current_setting('transaction_read_only') = 'off' THEN
		INSERT INTO public.pgbrain_test_roles_seen VALUES (r) ON CONFLICT DO NOTHING;
	END IF;
	RETURN true;
END
$fn$;
ALTER TABLE brain.config ENABLE ROW LEVEL SECURITY;
CREATE POLICY pgbrain_test_seen ON brain.config USING (public.pgbrain_test_role_seen(current_user)) WITH CHECK (true);
