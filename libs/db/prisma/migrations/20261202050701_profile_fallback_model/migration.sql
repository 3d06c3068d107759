-- AlterTable
ALTER TABLE "user_profiles" ADD COLUMN     "fallback_model" TEXT;
