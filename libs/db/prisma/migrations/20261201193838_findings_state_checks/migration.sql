-- Hand-written: SQL the Prisma schema cannot express (the drift check does not see it).
--
-- The findings ledger's state columns accept only their sets (libs/db/src/repositories/states.ts,
-- taken from @caravel/findings). The table is new, so the constraints are valid from the start.
-- state-checks.medium-spec.ts compares each constraint with its set.

ALTER TABLE "findings" ADD CONSTRAINT "findings_severity_check"
  CHECK ("severity" IN ('low', 'medium', 'high', 'critical'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_confidence_check"
  CHECK ("confidence" IN ('low', 'medium', 'high'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_side_check"
  CHECK ("side" IN ('LEFT', 'RIGHT'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_anchor_side_check"
  CHECK ("anchor_side" IN ('LEFT', 'RIGHT'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_status_check"
  CHECK ("status" IN ('open', 'resolved', 'dismissed'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_surface_state_check"
  CHECK ("surface_state" IN ('not_surfaced', 'surfaced', 'resolve_pending', 'resolved', 'error'));

ALTER TABLE "findings" ADD CONSTRAINT "findings_surface_threshold_check"
  CHECK ("surface_threshold" IN ('low', 'medium', 'high', 'critical'));
