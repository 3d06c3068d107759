-- CreateTable
CREATE TABLE "personal_tokens" (
    "id" TEXT NOT NULL,
    "login" TEXT NOT NULL,
    "github_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "secret_sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "personal_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "personal_tokens_login_idx" ON "personal_tokens"("login");

-- Hand-written: the scope is one of PERSONAL_TOKEN_SCOPES (libs/db/src/repositories/states.ts).
ALTER TABLE "personal_tokens" ADD CONSTRAINT "personal_tokens_scope_check"
  CHECK ("scope" IN ('read', 'act'));
