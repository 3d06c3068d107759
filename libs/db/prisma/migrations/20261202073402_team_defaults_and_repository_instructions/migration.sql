-- CreateTable
CREATE TABLE "team_defaults" (
    "id" TEXT NOT NULL DEFAULT 'team',
    "model" TEXT,
    "reasoning_effort" TEXT,
    "fallback_model" TEXT,
    "subagent_model" TEXT,
    "draft_pull_requests" BOOLEAN,
    "always_create_pull_requests" BOOLEAN,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "team_defaults_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "repository_instructions" (
    "repository" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "repository_instructions_pkey" PRIMARY KEY ("repository")
);

-- Hand-written: one team row, and repository instructions of 1 to 8,000 characters
-- (MAX_REPOSITORY_INSTRUCTIONS_CHARS in libs/db/src/repositories/repository-instructions.repository.ts).
ALTER TABLE "team_defaults" ADD CONSTRAINT "team_defaults_id_check" CHECK ("id" = 'team');

ALTER TABLE "repository_instructions" ADD CONSTRAINT "repository_instructions_length_check"
  CHECK (char_length("instructions") BETWEEN 1 AND 8000);
