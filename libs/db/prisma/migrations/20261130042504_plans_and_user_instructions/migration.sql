-- CreateTable
CREATE TABLE "thread_owners" (
    "thread_id" UUID NOT NULL,
    "owner" TEXT NOT NULL,
    "claimed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "thread_owners_pkey" PRIMARY KEY ("thread_id")
);

-- CreateTable
CREATE TABLE "thread_plans" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "revision" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'awaiting_approval',
    "saved_by" TEXT,
    "approved_by" TEXT,
    "approved_at" TIMESTAMPTZ(6),
    "feedback" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "thread_plans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_instructions" (
    "subject" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_instructions_pkey" PRIMARY KEY ("subject")
);

-- CreateIndex
CREATE UNIQUE INDEX "thread_plans_thread_id_revision_key" ON "thread_plans"("thread_id", "revision");
