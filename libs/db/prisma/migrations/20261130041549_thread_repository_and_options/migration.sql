-- AlterTable
ALTER TABLE "threads" ADD COLUMN     "options" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "repository" JSONB;
