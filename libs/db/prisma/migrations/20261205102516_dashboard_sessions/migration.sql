-- CreateTable
CREATE TABLE "dashboard_sessions" (
    "id_sha256" TEXT NOT NULL,
    "login" TEXT NOT NULL,
    "github_id" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(6) NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "revoked_at" TIMESTAMPTZ(6),
    "revoked_reason" TEXT,
    "revoked_by" TEXT,
    "user_agent" TEXT,
    "address" TEXT,

    CONSTRAINT "dashboard_sessions_pkey" PRIMARY KEY ("id_sha256")
);

-- CreateIndex
CREATE INDEX "dashboard_sessions_login_idx" ON "dashboard_sessions"("login");

-- CreateIndex
CREATE INDEX "dashboard_sessions_expires_at_idx" ON "dashboard_sessions"("expires_at");

-- Hand-written (the drift check does not see it): the role and the reason a session ended early
-- are of their sets (states.ts: DASHBOARD_ROLES, SESSION_REVOCATIONS; state-checks.medium-spec.ts
-- compares them), an ended session says why and by whom, and a session ends after it starts.
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_role_check"
  CHECK ("role" IN ('member', 'admin'));
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_revoked_reason_check"
  CHECK ("revoked_reason" IN ('sign_out', 'everywhere', 'admin'));
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_revoked_check"
  CHECK (("revoked_at" IS NULL) = ("revoked_reason" IS NULL)
    AND ("revoked_at" IS NULL) = ("revoked_by" IS NULL));
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_lifetime_check"
  CHECK ("expires_at" > "created_at");
