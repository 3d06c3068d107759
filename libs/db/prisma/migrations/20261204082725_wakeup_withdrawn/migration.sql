-- AlterTable
ALTER TABLE "thread_wakeups" ADD COLUMN     "withdrawn_at" TIMESTAMPTZ(6);
