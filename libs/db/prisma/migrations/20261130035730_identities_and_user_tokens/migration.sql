-- CreateTable
CREATE TABLE "identities" (
    "id" UUID NOT NULL,
    "github_login" TEXT,
    "slack_user_id" TEXT,
    "email" TEXT,
    "linear_user_id" TEXT,
    "jira_account_id" TEXT,
    "display_name" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_tokens" (
    "id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ciphertext" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "identities_github_login_key" ON "identities"("github_login");

-- CreateIndex
CREATE UNIQUE INDEX "identities_slack_user_id_key" ON "identities"("slack_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "identities_email_key" ON "identities"("email");

-- CreateIndex
CREATE UNIQUE INDEX "identities_linear_user_id_key" ON "identities"("linear_user_id");

-- CreateIndex
CREATE UNIQUE INDEX "identities_jira_account_id_key" ON "identities"("jira_account_id");

-- CreateIndex
CREATE INDEX "user_tokens_key_id_idx" ON "user_tokens"("key_id");

-- CreateIndex
CREATE UNIQUE INDEX "user_tokens_provider_subject_kind_key" ON "user_tokens"("provider", "subject", "kind");
