-- CreateTable
CREATE TABLE "eval_runs" (
    "id" UUID NOT NULL,
    "suite" TEXT NOT NULL,
    "config" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "attempts_per_task" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "out_dir" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL,
    "finished_at" TIMESTAMPTZ(6),

    CONSTRAINT "eval_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_attempts" (
    "run_id" UUID NOT NULL,
    "task_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "resolved" BOOLEAN NOT NULL,
    "exit_status" TEXT NOT NULL,
    "cost_usd" DOUBLE PRECISION NOT NULL,
    "model_calls" INTEGER NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "wall_ms" DOUBLE PRECISION NOT NULL,
    "patch" TEXT NOT NULL,
    "traj_path" TEXT,
    "error" TEXT,
    "recorded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_attempts_pkey" PRIMARY KEY ("run_id","task_id","attempt")
);

-- CreateIndex
CREATE INDEX "eval_runs_suite_config_created_at_idx" ON "eval_runs"("suite", "config", "created_at");

-- AddForeignKey
ALTER TABLE "eval_attempts" ADD CONSTRAINT "eval_attempts_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "eval_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The status is a state column (docs/db.md, "State columns"): EVAL_RUN_STATUSES.
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_status_check"
    CHECK ("status" IN ('running', 'finished'));
