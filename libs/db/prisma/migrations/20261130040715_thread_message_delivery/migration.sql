-- AlterTable
ALTER TABLE "thread_messages" ADD COLUMN     "delivery" TEXT NOT NULL DEFAULT 'inject';
