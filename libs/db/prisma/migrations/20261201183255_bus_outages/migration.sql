-- AlterTable
ALTER TABLE "bus_dead_letters" ADD COLUMN     "replayed_at" TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "bus_deliveries" ADD COLUMN     "outages" INTEGER NOT NULL DEFAULT 0;
