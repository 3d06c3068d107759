-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "deliveries" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "semantic_key" TEXT,
    "thread_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" JSONB NOT NULL,

    CONSTRAINT "deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "threads" (
    "id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "repository_owner" TEXT,
    "repository_name" TEXT,
    "status" TEXT NOT NULL DEFAULT 'idle',
    "active_run_id" UUID,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "threads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "trigger_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "exit_status" TEXT,
    "summary" TEXT NOT NULL DEFAULT '',
    "runner" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run_events" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "run_id" UUID,
    "type" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "sequence" BIGINT NOT NULL,
    "occurred_at" TIMESTAMPTZ(6) NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "run_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sandboxes" (
    "id" UUID NOT NULL,
    "thread_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ready',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sandboxes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbox" (
    "consumer" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbox_pkey" PRIMARY KEY ("consumer","message_id")
);

-- CreateTable
CREATE TABLE "outbox" (
    "id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "pattern" TEXT NOT NULL,
    "envelope" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(6),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leases" (
    "key" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "revision" BIGINT NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "leases_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "bus_messages" (
    "sequence" BIGSERIAL NOT NULL,
    "stream" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "thread_id" UUID,
    "message_id" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "stored_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bus_messages_pkey" PRIMARY KEY ("sequence")
);

-- CreateTable
CREATE TABLE "bus_consumers" (
    "stream" TEXT NOT NULL,
    "durable" TEXT NOT NULL,
    "filter" TEXT NOT NULL,
    "ordered" BOOLEAN NOT NULL,
    "config" JSONB NOT NULL,
    "delivered_through" BIGINT NOT NULL DEFAULT 0,
    "ack_floor" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bus_consumers_pkey" PRIMARY KEY ("stream","durable")
);

-- CreateTable
CREATE TABLE "bus_deliveries" (
    "stream" TEXT NOT NULL,
    "durable" TEXT NOT NULL,
    "sequence" BIGINT NOT NULL,
    "thread_id" UUID,
    "state" TEXT NOT NULL,
    "delivery_count" INTEGER NOT NULL,
    "visible_at" TIMESTAMPTZ(6) NOT NULL,
    "deadline_at" TIMESTAMPTZ(6),
    "holder" TEXT,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bus_deliveries_pkey" PRIMARY KEY ("stream","durable","sequence")
);

-- CreateTable
CREATE TABLE "bus_dead_letters" (
    "stream" TEXT NOT NULL,
    "durable" TEXT NOT NULL,
    "sequence" BIGINT NOT NULL,
    "subject" TEXT NOT NULL,
    "deliveries" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "recorded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bus_dead_letters_pkey" PRIMARY KEY ("stream","durable","sequence")
);

-- CreateIndex
CREATE INDEX "deliveries_thread_id_idx" ON "deliveries"("thread_id");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_source_delivery_id_key" ON "deliveries"("source", "delivery_id");

-- CreateIndex
CREATE UNIQUE INDEX "deliveries_source_semantic_key_key" ON "deliveries"("source", "semantic_key");

-- CreateIndex
CREATE INDEX "threads_status_idx" ON "threads"("status");

-- CreateIndex
CREATE INDEX "runs_thread_id_created_at_idx" ON "runs"("thread_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "runs_trigger_id_key" ON "runs"("trigger_id");

-- CreateIndex
CREATE INDEX "run_events_thread_id_occurred_at_idx" ON "run_events"("thread_id", "occurred_at");

-- CreateIndex
CREATE INDEX "run_events_run_id_idx" ON "run_events"("run_id");

-- CreateIndex
CREATE UNIQUE INDEX "run_events_stream_sequence_key" ON "run_events"("stream", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "sandboxes_thread_id_key" ON "sandboxes"("thread_id");

-- CreateIndex
CREATE INDEX "outbox_published_at_created_at_idx" ON "outbox"("published_at", "created_at");

-- CreateIndex
CREATE INDEX "bus_messages_stream_sequence_idx" ON "bus_messages"("stream", "sequence");

-- CreateIndex
CREATE INDEX "bus_messages_thread_id_sequence_idx" ON "bus_messages"("thread_id", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "bus_messages_stream_message_id_key" ON "bus_messages"("stream", "message_id");

-- CreateIndex
CREATE INDEX "bus_deliveries_stream_durable_state_visible_at_idx" ON "bus_deliveries"("stream", "durable", "state", "visible_at");

-- CreateIndex
CREATE INDEX "bus_deliveries_stream_durable_thread_id_sequence_idx" ON "bus_deliveries"("stream", "durable", "thread_id", "sequence");

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "threads"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
