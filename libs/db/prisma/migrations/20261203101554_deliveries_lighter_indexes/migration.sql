-- Two fewer B-tree insertions for every webhook delivery: no query reads deliveries by thread (the
-- index served ad-hoc look-ups only), and the retention sweep's age look-up uses a BRIN index,
-- which rows arriving in time order keep small and cheap to maintain.

-- DropIndex
DROP INDEX "deliveries_received_at_idx";

-- DropIndex
DROP INDEX "deliveries_thread_id_idx";

-- CreateIndex
CREATE INDEX "deliveries_received_at_idx" ON "deliveries" USING BRIN ("received_at");
