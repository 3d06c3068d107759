-- CreateTable
CREATE TABLE "sign_in_pins" (
    "login" TEXT NOT NULL,
    "github_id" INTEGER NOT NULL,
    "pinned_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_pins_pkey" PRIMARY KEY ("login")
);
