-- AlterTable
ALTER TABLE "thread_messages" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'message';
