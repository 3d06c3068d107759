import {
  ReplayFinishedV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  type DataOf,
} from '@caravel/contracts';
import type { RunEventRow } from '@caravel/db';
import type { z } from 'zod';
import type { replayResponse, replaySummaryResponse } from '../api/replay-schemas.js';

export type ReplayView = z.output<typeof replayResponse>;
export type ReplaySummary = z.output<typeof replaySummaryResponse>;

/** The indexed types a replay is made of: its request, its start, its calls and its verdict. */
export const REPLAY_EVENT_TYPES = [
  ReplayRunV1.type,
  ReplayStartedV1.type,
  ReplayStepV1.type,
  ReplayFinishedV1.type,
] as const;

type Finished = DataOf<typeof ReplayFinishedV1>;

function replayIdOf(row: RunEventRow): string | null {
  const id = (row.data as { replayId?: unknown } | null)?.replayId;
  return typeof id === 'string' ? id : null;
}

function stepsOf(rows: readonly RunEventRow[]): ReplayView['steps'] {
  // A replay done again after a crash publishes its calls under the same index: one each.
  const steps = new Map<number, ReplayView['steps'][number]>();
  for (const row of rows.filter((r) => r.type === ReplayStepV1.type)) {
    const {
      threadId: _t,
      runId: _r,
      replayId: _id,
      ...step
    } = ReplayStepV1.dataSchema.parse(row.data);
    steps.set(step.index, { ...step, difference: step.difference ?? null });
  }
  return [...steps.values()].sort((a, b) => a.index - b.index);
}

function verdictOf(finished: RunEventRow | undefined) {
  const end: Finished | null = finished ? ReplayFinishedV1.dataSchema.parse(finished.data) : null;
  return {
    finishedAt: finished?.occurredAt.toISOString() ?? null,
    comparison: end?.comparison ?? null,
    error: end?.error ?? null,
    recordedPatch: end?.recordedPatch ?? null,
    replayedPatch: end?.replayedPatch ?? null,
  };
}

function viewOf(id: string, rows: readonly RunEventRow[]): ReplayView {
  const find = (type: string) => rows.find((row) => row.type === type);
  const [requested, started] = [find(ReplayRunV1.type), find(ReplayStartedV1.type)];
  // A replay done again after a crash may say twice how it ended: the latest stands.
  const finished = rows.filter((row) => row.type === ReplayFinishedV1.type).at(-1);
  const first = rows[0] as RunEventRow;
  const request = requested ? ReplayRunV1.dataSchema.parse(requested.data) : null;
  const start = started ? ReplayStartedV1.dataSchema.parse(started.data) : null;
  const status = finished
    ? ReplayFinishedV1.dataSchema.parse(finished.data).status
    : start
      ? 'running'
      : 'requested';
  const steps = stepsOf(rows);
  const count = (outcome: string) => steps.filter((step) => step.outcome === outcome).length;
  return {
    id,
    threadId: first.threadId,
    runId: (first.data as { runId: string }).runId,
    status,
    requestedBy: request?.requestedBy.externalId ?? null,
    requestedAt: requested?.occurredAt.toISOString() ?? null,
    startedAt: started?.occurredAt.toISOString() ?? null,
    baseCommit: start?.baseCommit ?? null,
    calls: start?.calls ?? null,
    counts: {
      replayed: steps.length,
      matched: count('matched'),
      differed: count('differed'),
      failed: count('failed'),
    },
    steps,
    ...verdictOf(finished),
  };
}

/** A thread's replays from their indexed events (in stream order), newest first. */
export function replaysOf(rows: readonly RunEventRow[]): ReplayView[] {
  const byId = new Map<string, RunEventRow[]>();
  for (const row of rows) {
    const id = replayIdOf(row);
    if (id === null) continue;
    byId.set(id, [...(byId.get(id) ?? []), row]);
  }
  return [...byId.entries()].map(([id, own]) => viewOf(id, own)).reverse();
}

/** A replay without its calls and patches, as the list shows it. */
export function summaryOf(view: ReplayView): ReplaySummary {
  const { steps: _steps, recordedPatch: _recorded, replayedPatch: _replayed, ...summary } = view;
  return summary;
}
