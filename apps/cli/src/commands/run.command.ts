import { TriggerReceivedV1, runIdForTrigger } from '@caravel/contracts';
import { RunEventRepository, RunRepository, type Database } from '@caravel/db';
import { BUS, DATABASE, type ServiceHost } from '@caravel/platform';
import type { Bus } from '@caravel/messaging';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvSource } from '@caravel/config';
import { branchDiff, localRepository } from './local-repository.js';
import { startEmbedded } from './start.command.js';

export interface RunOptions {
  repo: string;
  task: string;
  model?: string;
  dataDir?: string;
  /** Where progress lines go (stdout by default). */
  write?: (line: string) => void;
}

export interface RunReport {
  exitStatus: string;
  outcome: string;
  branch: string;
  repository: string;
  diff: string | undefined;
  steps: number;
}

const POLL_MS = 250;

/** What a step event says about its model call and tool calls. */
interface StepData {
  step?: number;
  action?: string;
  observation?: string;
  thought?: string;
  toolCalls?: unknown[];
  usage?: { inputTokens?: number; outputTokens?: number; costUsd?: number };
}

/** A run's progress so far, summed over its steps. */
export interface RunTotals {
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Adds one step to the totals. */
export function addStep(totals: RunTotals, step: StepData): RunTotals {
  return {
    toolCalls: totals.toolCalls + (step.toolCalls?.length ?? 0),
    inputTokens: totals.inputTokens + (step.usage?.inputTokens ?? 0),
    outputTokens: totals.outputTokens + (step.usage?.outputTokens ?? 0),
    costUsd: totals.costUsd + (step.usage?.costUsd ?? 0),
  };
}

/** `tool calls 3 · tokens 2,400 in / 120 out · $0.0123 · 4.2 s` */
export function progressLine(totals: RunTotals, elapsedMs: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    `tool calls ${totals.toolCalls} · tokens ${n(totals.inputTokens)} in / ${n(totals.outputTokens)} out` +
    ` · $${totals.costUsd.toFixed(4)} · ${(elapsedMs / 1000).toFixed(1)} s`
  );
}

function firstLine(text: string, max = 100): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * `caravel run`: one task end to end on the embedded platform. Starts Caravel in this process,
 * sends the task as a trigger for the repository, prints each step as it happens, then the branch
 * and its diff.
 */
export async function runTask(env: EnvSource, options: RunOptions): Promise<RunReport> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const repository = await localRepository(options.repo);
  if (repository.copiedFrom)
    write(
      `${repository.copiedFrom} is not a git repository of its own: working on a copy at ${repository.path}`,
    );
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'caravel-run-')));
  await chmod(dataDir, 0o755);
  const host = await startEmbedded(
    { LOG_LEVEL: 'warn', ...env },
    { dataDir, port: 0, handleSignals: false },
  );
  try {
    return await drive(host, repository, options, write);
  } finally {
    await host.close();
  }
}

async function drive(
  host: ServiceHost,
  repository: { path: string; name: string },
  options: RunOptions,
  write: (line: string) => void,
): Promise<RunReport> {
  const bus = host.app.get<symbol, Bus>(BUS);
  const database = host.app.get<symbol, Database>(DATABASE);
  const trigger = TriggerReceivedV1.create(
    {
      threadId: randomUUID(),
      source: 'synthetic',
      deliveryId: `cli-${randomUUID()}`,
      author: { externalId: 'cli' },
      text: options.task,
      trusted: true,
      repository: { owner: 'local', name: repository.name, cloneUrl: repository.path },
      options: options.model ? { model: options.model } : {},
    },
    { source: 'cli' },
  );
  const started = Date.now();
  await bus.publish(TriggerReceivedV1, trigger);
  write(`thread ${trigger.data.threadId}: ${options.task}`);
  const runs = new RunRepository(database.db);
  const events = new RunEventRepository(database.db);
  const runId = runIdForTrigger(trigger.id);
  let after = -1;
  let steps = 0;
  let totals: RunTotals = { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  for (;;) {
    for (const event of await events.listByThread(trigger.data.threadId, {
      afterSequence: after,
    })) {
      after = event.sequence;
      const data = event.data as StepData;
      if (event.type === 'evt.run.step') {
        steps += 1;
        totals = addStep(totals, data);
        write(
          `  step ${data.step ?? steps - 1}: ${firstLine(data.action || data.thought || '(no action)')}`,
        );
        if (data.observation) write(`    → ${firstLine(data.observation)}`);
        write(`    ${progressLine(totals, Date.now() - started)}`);
      }
    }
    const run = await runs.get(runId);
    if (run && run.finishedAt && run.status !== 'queued' && run.status !== 'running') {
      const branch = `caravel/${trigger.data.threadId.slice(0, 8)}`;
      const diff = await branchDiff(repository.path, branch);
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      write(`run ${run.status}: ${run.exitStatus ?? '?'} after ${steps} steps in ${elapsed} s`);
      write(
        diff === undefined
          ? `branch ${branch} was not pushed to ${repository.path}`
          : `branch ${branch} in ${repository.path}`,
      );
      if (diff) write(diff);
      return {
        exitStatus: run.exitStatus ?? '',
        outcome: run.status,
        branch,
        repository: repository.path,
        diff,
        steps,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
