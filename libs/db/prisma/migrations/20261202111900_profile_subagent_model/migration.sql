-- AlterTable
ALTER TABLE "user_profiles" ADD COLUMN     "subagent_model" TEXT;
