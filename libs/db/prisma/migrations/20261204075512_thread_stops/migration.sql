-- CreateTable
CREATE TABLE "thread_stops" (
    "thread_id" UUID NOT NULL,
    "requested_at" TIMESTAMPTZ(6) NOT NULL,
    "requested_by" TEXT NOT NULL,

    CONSTRAINT "thread_stops_pkey" PRIMARY KEY ("thread_id")
);
