-- AlterTable
ALTER TABLE "user_profiles" ADD COLUMN     "autofix_ci" BOOLEAN;
