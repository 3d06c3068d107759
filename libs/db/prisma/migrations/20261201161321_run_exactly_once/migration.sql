-- AlterTable
ALTER TABLE "run_queue" ADD COLUMN     "start_published_at" TIMESTAMPTZ(6);

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "concluded_at" TIMESTAMPTZ(6),
ADD COLUMN     "conclusion" JSONB;
