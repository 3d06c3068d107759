-- AlterTable
ALTER TABLE "budget_pauses" ADD COLUMN     "withdrawn_at" TIMESTAMPTZ(6),
ADD COLUMN     "withdrawn_by" TEXT;
