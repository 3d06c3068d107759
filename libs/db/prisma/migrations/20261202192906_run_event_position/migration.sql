-- AlterTable: the events indexed so far are numbered per thread in sequence order.
ALTER TABLE "run_events" ADD COLUMN     "position" BIGINT;

UPDATE "run_events" AS "event"
SET "position" = "numbered"."position"
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "thread_id" ORDER BY "sequence") AS "position"
  FROM "run_events"
) AS "numbered"
WHERE "event"."id" = "numbered"."id";

ALTER TABLE "run_events" ALTER COLUMN "position" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "run_events_thread_id_position_key" ON "run_events"("thread_id", "position");
