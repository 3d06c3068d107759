-- CreateIndex
CREATE INDEX "deliveries_received_at_idx" ON "deliveries"("received_at");
