-- CreateTable
CREATE TABLE "pull_request_heads" (
    "owner" TEXT NOT NULL,
    "repo" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "head_sha" TEXT NOT NULL,
    "seen_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "pull_request_heads_pkey" PRIMARY KEY ("owner","repo","number")
);
