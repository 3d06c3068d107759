-- AlterTable
ALTER TABLE "user_profiles" ADD COLUMN     "default_repository" TEXT;

-- CreateTable
CREATE TABLE "enabled_repositories" (
    "repository" TEXT NOT NULL,
    "agent" BOOLEAN NOT NULL DEFAULT true,
    "auto_review" BOOLEAN NOT NULL DEFAULT false,
    "ci_autofix" BOOLEAN NOT NULL DEFAULT false,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "enabled_repositories_pkey" PRIMARY KEY ("repository")
);
