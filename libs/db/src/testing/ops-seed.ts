import { randomUUID } from 'node:crypto';
import type { Executor } from '../repositories/executor.js';
import { RunEventRepository } from '../repositories/run-event.repository.js';
import { RunQueueRepository } from '../repositories/run-queue.repository.js';
import { RunRepository } from '../repositories/run.repository.js';
import { ThreadRepository } from '../repositories/thread.repository.js';
import type { FinishedRunStatus } from '../repositories/states.js';

/** One model call of a seeded run: its tokens, and dollars when the provider said. */
export interface SeededCall {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

export interface SeededRun {
  threadId: string;
  runId?: string;
  /** `owner/name`. */
  repository: string;
  /** `source:id` of whoever asked for it. */
  person: string;
  /** The start command's requester (CI babysitting's `caravel:ci-watch` for a CI fix). */
  requestedBy?: string;
  createdAt: Date;
  /** Absent: never started. */
  startedAt?: Date;
  /** With `status`: how and when it ended. */
  finishedAt?: Date;
  status?: FinishedRunStatus;
  exitStatus?: string;
  summary?: string;
  /** One `evt.run.step` per call, in order. */
  calls?: SeededCall[];
}

/**
 * A run as the platform leaves it for the dashboard's ops page: its thread, its run-queue entry,
 * its start and end, and one step event per model call with the usage it reported.
 */
export async function seedRun(db: Executor, run: SeededRun): Promise<string> {
  const runId = run.runId ?? randomUUID();
  const [owner = '', name = ''] = run.repository.split('/');
  await new ThreadRepository(db).upsert({
    id: run.threadId,
    source: 'github',
    repositoryOwner: owner,
    repositoryName: name,
    at: run.createdAt,
  });
  const runs = new RunRepository(db);
  await runs.create({
    id: runId,
    threadId: run.threadId,
    triggerId: randomUUID(),
    createdAt: run.createdAt,
  });
  const requester = run.requestedBy ?? run.person.replace(/^[a-z]+:/, '');
  await new RunQueueRepository(db).enqueue({
    runId,
    threadId: run.threadId,
    repositoryKey: run.repository,
    userKey: run.person,
    command: { threadId: run.threadId, runId, requestedBy: { externalId: requester } },
    enqueuedAt: run.createdAt,
  });
  if (run.startedAt) await runs.markStarted(runId, { runner: 'seed', at: run.startedAt });
  const events = new RunEventRepository(db);
  for (const [step, call] of (run.calls ?? []).entries()) {
    await events.append({
      id: randomUUID(),
      threadId: run.threadId,
      runId,
      type: 'evt.run.step',
      stream: `seed-${runId}`,
      sequence: step + 1,
      occurredAt: run.startedAt ?? run.createdAt,
      data: { threadId: run.threadId, runId, step, actor: 'agent', usage: call },
    });
  }
  if (run.status) {
    await runs.markFinished(runId, {
      status: run.status,
      exitStatus: run.exitStatus ?? null,
      summary: run.summary ?? '',
      ...(run.finishedAt ? { at: run.finishedAt } : {}),
    });
  }
  return runId;
}
