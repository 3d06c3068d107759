-- AlterTable
ALTER TABLE "user_profiles" ADD COLUMN     "always_create_pull_requests" BOOLEAN,
ADD COLUMN     "draft_pull_requests" BOOLEAN NOT NULL DEFAULT true;
