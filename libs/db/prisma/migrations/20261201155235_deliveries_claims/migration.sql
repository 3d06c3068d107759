-- AlterTable
ALTER TABLE "deliveries" ADD COLUMN     "payload_sha256" TEXT,
ADD COLUMN     "settled_at" TIMESTAMPTZ(6);

-- Every delivery stored before claims existed was recorded after its publish: it is settled.
UPDATE "deliveries" SET "settled_at" = "received_at" WHERE "settled_at" IS NULL;
