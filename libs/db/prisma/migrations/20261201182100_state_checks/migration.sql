-- Hand-written: SQL the Prisma schema cannot express (the drift check does not see it).
--
-- Every state column accepts only its closed set (libs/db/src/repositories/states.ts; sources,
-- follow-up kinds and run outcomes come from @caravel/contracts). A new value needs a migration
-- that drops and re-adds its constraint. state-checks.medium-spec.ts compares each constraint
-- with its set.
--
-- The constraints are added NOT VALID, then each is validated once no existing row breaks it. A
-- database holding a value outside a set stops here: the exception names every such value (table,
-- column, value, rows) and the whole migration rolls back, so nothing is rewritten and the start
-- fails until those rows are corrected (docs/db.md, "State columns").

ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_source_check"
  CHECK ("source" IN ('github', 'slack', 'linear', 'jira', 'confluence', 'synthetic')) NOT VALID;

ALTER TABLE "threads" ADD CONSTRAINT "threads_source_check"
  CHECK ("source" IN ('github', 'slack', 'linear', 'jira', 'confluence', 'synthetic')) NOT VALID;

ALTER TABLE "threads" ADD CONSTRAINT "threads_status_check"
  CHECK ("status" IN ('idle', 'running')) NOT VALID;

ALTER TABLE "runs" ADD CONSTRAINT "runs_status_check"
  CHECK ("status" IN ('waiting', 'queued', 'running', 'merged', 'completed', 'failed', 'interrupted')) NOT VALID;

ALTER TABLE "thread_messages" ADD CONSTRAINT "thread_messages_delivery_check"
  CHECK ("delivery" IN ('inject', 'interrupt')) NOT VALID;

ALTER TABLE "thread_messages" ADD CONSTRAINT "thread_messages_kind_check"
  CHECK ("kind" IN ('message', 'command')) NOT VALID;

ALTER TABLE "run_notices" ADD CONSTRAINT "run_notices_kind_check"
  CHECK ("kind" IN ('failure', 'queue_position')) NOT VALID;

ALTER TABLE "sandboxes" ADD CONSTRAINT "sandboxes_status_check"
  CHECK ("status" IN ('ready')) NOT VALID;

ALTER TABLE "retired_sandboxes" ADD CONSTRAINT "retired_sandboxes_reason_check"
  CHECK ("reason" IN ('recreated', 'replaced', 'reclaimed', 'gone')) NOT VALID;

ALTER TABLE "thread_plans" ADD CONSTRAINT "thread_plans_status_check"
  CHECK ("status" IN ('awaiting_approval', 'approved')) NOT VALID;

ALTER TABLE "user_tokens" ADD CONSTRAINT "user_tokens_kind_check"
  CHECK ("kind" IN ('access', 'refresh')) NOT VALID;

ALTER TABLE "bus_deliveries" ADD CONSTRAINT "bus_deliveries_state_check"
  CHECK ("state" IN ('pending', 'inflight')) NOT VALID;

DO $$
DECLARE
  added record;
  unexpected text;
  problems text := '';
BEGIN
  FOR added IN
    SELECT c.conrelid::regclass AS table_name, c.conname AS name, a.attname AS column_name,
           pg_get_expr(c.conbin, c.conrelid) AS expression
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    WHERE c.contype = 'c' AND NOT c.convalidated
      AND c.connamespace = current_schema()::regnamespace
    ORDER BY 1, 2
  LOOP
    EXECUTE format(
      'SELECT string_agg(format(''%%L (rows: %%s)'', value, n), '', '' ORDER BY value) '
        'FROM (SELECT %I AS value, count(*) AS n FROM %s WHERE NOT (%s) GROUP BY 1) AS outside',
      added.column_name, added.table_name, added.expression)
    INTO unexpected;
    IF unexpected IS NULL THEN
      EXECUTE format('ALTER TABLE %s VALIDATE CONSTRAINT %I', added.table_name, added.name);
    ELSE
      problems := problems || format(E'\n  %s.%s: %s', added.table_name, added.column_name, unexpected);
    END IF;
  END LOOP;
  IF problems <> '' THEN
    RAISE EXCEPTION 'state_checks: rows hold values outside their column''s set; nothing was changed. '
      'Correct or delete them, then start again (docs/db.md, "State columns"):%', problems;
  END IF;
END $$;
