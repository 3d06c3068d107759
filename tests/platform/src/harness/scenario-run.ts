import { trajectoryFromEvents, type Traj } from '@caravel/agent';
import { branchDiff, localRepository } from '@caravel/cli';
import {
  TriggerReceivedV1,
  runIdForTrigger,
  type EnvelopeOf,
  type ThreadOptions,
  type TriggerSource,
} from '@caravel/contracts';
import { RunEventRepository, RunRepository, type RunRow } from '@caravel/db';
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlatformPair } from './platform-pairs.js';

/** The sample repository shipped for `caravel run` (a slugify bug and its tests). */
export const SAMPLE_REPO = fileURLToPath(
  new URL('../../../../examples/sample-repo', import.meta.url),
);

/** What one run on the platform produced. */
export interface ScenarioOutcome {
  run: RunRow;
  traj: Traj;
  /** What the run's branch changed in the repository, when it pushed one. */
  diff: string | undefined;
  threadId: string;
  repository: string;
}

/** A scripted-model response, as a script file holds it. */
export interface ScriptedResponse {
  content?: string;
  tool_calls?: { name: string; args: Record<string, unknown> }[];
  cost?: number;
  usage?: { input_tokens: number; output_tokens: number };
}

/** Writes a model script (JSON is YAML) and returns its `scripted:` model reference. */
export async function scriptedModel(
  dir: string,
  name: string,
  responses: ScriptedResponse[],
): Promise<string> {
  const file = join(dir, `${name}.script.yaml`);
  await writeFile(file, JSON.stringify({ responses }, null, 2));
  return `scripted:${file}`;
}

/** A response that runs one shell command. */
export const shell = (command: string, extra: Omit<ScriptedResponse, 'tool_calls'> = {}) => ({
  ...extra,
  tool_calls: [{ name: 'execute', args: { command } }],
});

/** A response that submits. */
export const submit = (): ScriptedResponse => ({ tool_calls: [{ name: 'submit', args: {} }] });

async function finished(pair: PlatformPair, runId: string, timeoutMs: number): Promise<RunRow> {
  const runs = new RunRepository(pair.database.db);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await runs.get(runId);
    if (run?.finishedAt && run.status !== 'queued' && run.status !== 'running') return run;
    if (Date.now() > deadline) {
      throw new Error(`run ${runId} did not finish in ${timeoutMs} ms (status ${run?.status})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The run's events once the dashboard's index holds its end (it may trail dispatch): the index
 * takes a run's events in their published order, so then it holds all of them.
 */
async function indexedEvents(pair: PlatformPair, threadId: string, runId: string) {
  const index = new RunEventRepository(pair.database.db);
  return until(async () => {
    const events = (await index.listByThread(threadId, {})).filter((e) => e.runId === runId);
    return events.some((e) => e.type === 'evt.run.finished') ? events : undefined;
  }, `the dashboard to index the end of run ${runId}`);
}

/** A task sent to the platform, before its run finished. */
export interface StartedScenario {
  threadId: string;
  runId: string;
  repository: { path: string; name: string };
}

/** Where a scenario's trigger comes from: its source channel, its author and whose repository. */
export interface TriggerOrigin {
  source: TriggerSource;
  /** The source's pointer to reply to (Slack: `{ channel, threadTs }`). */
  replyTo?: Record<string, string | number>;
  /** The author's external id (fair share counts runs per source and author). */
  author?: string;
  /** The repository's owner (fair share counts runs per `owner/name`); `local` by default. */
  owner?: string;
}

const SYNTHETIC: TriggerOrigin = { source: 'synthetic', author: 'scenario' };

/** Sends one task as a trigger on a fresh thread (on a fresh copy of the sample repository). */
export async function startScenario(
  pair: PlatformPair,
  task: { prompt: string; options: ThreadOptions },
): Promise<StartedScenario> {
  return startScenarioFrom(pair, task, SYNTHETIC);
}

/**
 * Like {@link startScenario}, from a source channel: the thread answers there (failure replies,
 * queue positions) and a person's later message on it interrupts its run.
 */
export async function startScenarioFrom(
  pair: PlatformPair,
  task: { prompt: string; options: ThreadOptions },
  origin: TriggerOrigin,
): Promise<StartedScenario> {
  const { trigger, started } = await scenarioTrigger(task, origin);
  await pair.bus.publish(TriggerReceivedV1, trigger);
  return started;
}

/**
 * The trigger {@link startScenarioFrom} sends, not sent yet (a test may deliver it more than
 * once), and the scenario it starts.
 */
export async function scenarioTrigger(
  task: { prompt: string; options: ThreadOptions },
  origin: TriggerOrigin = SYNTHETIC,
): Promise<{ trigger: EnvelopeOf<typeof TriggerReceivedV1>; started: StartedScenario }> {
  const repository = await localRepository(SAMPLE_REPO, {
    copyInto: await mkdtemp(join(tmpdir(), 'caravel-scenario-')),
  });
  const threadId = randomUUID();
  const trigger = TriggerReceivedV1.create(
    {
      threadId,
      source: origin.source,
      deliveryId: `scenario-${randomUUID()}`,
      author: { externalId: origin.author ?? 'scenario' },
      text: task.prompt,
      trusted: true,
      repository: {
        owner: origin.owner ?? 'local',
        name: repository.name,
        cloneUrl: repository.path,
      },
      options: task.options,
      ...(origin.replyTo ? { replyTo: origin.replyTo } : {}),
    },
    { source: 'scenario' },
  );
  return { trigger, started: { threadId, runId: runIdForTrigger(trigger.id), repository } };
}

/** Sends a follow-up on a thread as a person in a source channel would; returns its run id. */
export async function sendFollowUp(
  pair: PlatformPair,
  threadId: string,
  text: string,
  source: TriggerSource = 'slack',
  author = 'U-person',
): Promise<string> {
  const trigger = TriggerReceivedV1.create(
    {
      threadId,
      source,
      deliveryId: `follow-up-${randomUUID()}`,
      author: { externalId: author },
      text,
      trusted: true,
    },
    { source: 'scenario' },
  );
  await pair.bus.publish(TriggerReceivedV1, trigger);
  return runIdForTrigger(trigger.id);
}

/** Waits for a run to finish and reads back its row, its `.traj` and its thread's branch. */
export async function scenarioOutcome(
  pair: PlatformPair,
  started: StartedScenario,
  runId = started.runId,
  timeoutMs = 120_000,
): Promise<ScenarioOutcome> {
  const run = await finished(pair, runId, timeoutMs);
  const traj = trajectoryFromEvents(await indexedEvents(pair, started.threadId, run.id));
  const branch = `caravel/${started.threadId.slice(0, 8)}`;
  const diff = await branchDiff(started.repository.path, branch);
  return { run, traj, diff, threadId: started.threadId, repository: started.repository.path };
}

/** Sends one task and waits for its run: the run, its `.traj` and its branch. */
export async function runScenario(
  pair: PlatformPair,
  task: { prompt: string; options: ThreadOptions; timeoutMs?: number },
): Promise<ScenarioOutcome> {
  const started = await startScenario(pair, task);
  return scenarioOutcome(pair, started, started.runId, task.timeoutMs);
}

/** The thread's next run: one that is not among `known` and did not join another (`merged`). */
export async function nextRun(
  pair: PlatformPair,
  threadId: string,
  known: readonly string[],
): Promise<RunRow> {
  const runs = new RunRepository(pair.database.db);
  return until(async () => {
    const all = await runs.listByThread(threadId);
    return all.find((run) => !known.includes(run.id) && run.status !== 'merged');
  }, `a new run on thread ${threadId}`);
}

/**
 * Polls `probe` every 100 ms until it returns a value; fails naming `what` after `timeoutMs` (a
 * minute unless given).
 */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
