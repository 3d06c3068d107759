-- CreateTable
CREATE TABLE "user_profiles" (
    "identity" TEXT NOT NULL,
    "model" TEXT,
    "reasoning_effort" TEXT,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_profiles_pkey" PRIMARY KEY ("identity")
);
