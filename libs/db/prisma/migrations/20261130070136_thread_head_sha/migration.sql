-- AlterTable
ALTER TABLE "threads" ADD COLUMN     "head_sha" TEXT;
