-- AlterTable
ALTER TABLE "review_ledgers" ADD COLUMN     "skip_reason" TEXT,
ADD COLUMN     "skipped_at" TIMESTAMPTZ(6),
ADD COLUMN     "skipped_sha" TEXT;
