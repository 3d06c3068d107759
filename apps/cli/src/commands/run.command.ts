import { TriggerReceivedV1, runIdForTrigger } from '@caravel/contracts';
import { RunEventRepository, RunRepository, type Database, type RunRow } from '@caravel/db';
import { BUS, DATABASE, type ServiceHost } from '@caravel/platform';
import type { Bus } from '@caravel/messaging';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { branchDiff, localRepository } from './local-repository.js';
import { runBundlesFor, runBundleSelection, type RunBundleOptions } from './run-bundles.js';
import { writeRunTrajectory } from './run-trajectory.js';
import { RunProgress, type RunTotals } from './run-progress.js';
import { RunStatus, type StatusTerminal } from './run-status.js';
import { bootEmbedded, embeddedConfig } from './embedded-boot.js';

export interface RunOptions extends RunBundleOptions {
  repo: string;
  task: string;
  model?: string;
  /** Keep the run's data here; without it a temporary directory is used and removed at the end. */
  dataDir?: string;
  /** Where lines go (stdout by default). */
  write?: (line: string) => void;
  /** A terminal to show the current activity on, as one line rewritten in place. */
  terminal?: StatusTerminal;
  /** Told the temporary data directory as soon as it exists (to remove it on a hard exit). */
  onTemporaryDir?: (dir: string) => void;
  /** Stops the run's wait: the platform is closed and temporary data removed, then it rejects. */
  signal?: AbortSignal;
  /** Write the run's SWE-agent `.traj` to this file when it ends (`caravel eval run`). */
  trajectory?: string;
}

export interface RunReport {
  exitStatus: string;
  outcome: string;
  branch: string;
  repository: string;
  diff: string | undefined;
  steps: number;
  /** Why the run ended as it did (its summary: the error of a failed run). */
  reason: string;
  threadId: string;
  /** Tool calls, tokens and cost over the run's steps (cost 0 when the model's price is unknown). */
  totals: RunTotals;
  /** The `.traj` written (with `trajectory`; absent when the run recorded no trajectory). */
  trajectory?: string;
}

const POLL_MS = 250;
/**
 * How long the index may trail a run the runner concluded before the report goes out without
 * the run's last events (on a healthy process it trails by milliseconds).
 */
const INDEX_GRACE_MS = 60_000;

/** The last line of a run that did not complete: its status and why. */
export function failureLine(run: Pick<RunRow, 'status' | 'exitStatus' | 'summary'>): string {
  const reason = run.summary.trim().replace(/\s+/g, ' ');
  return `run ${run.status} (${run.exitStatus ?? 'no exit status'}): ${reason || 'no reason recorded'}`;
}

/**
 * `caravel run`: one task end to end on the embedded platform. Checks the model and the sandbox,
 * starts Caravel in this process, sends the task as a trigger for the repository, shows each step
 * and what is happening now, then the branch and its diff. Data goes to a temporary directory,
 * removed at the end however the run ends, unless `dataDir` is given; never to
 * `CARAVEL_DATABASE_URL`.
 */
export async function runTask(env: EnvSource, options: RunOptions): Promise<RunReport> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const status = new RunStatus({
    line: write,
    ...(options.terminal ? { terminal: options.terminal } : {}),
  });
  const say = (line: string) => status.line(`caravel: ${line}`);
  // The cheapest mistake first, before the model is built or the repository copied.
  if (!(await stat(resolve(options.repo)).catch(() => undefined))?.isDirectory())
    throw new AppError('BAD_REQUEST', `--repo ${options.repo}: no such directory`);
  const runEnv = { LOG_LEVEL: 'warn', ...env };
  const config = await embeddedConfig(
    runEnv,
    {
      port: 0,
      forRun: true,
      ...(options.model ? { model: { spec: options.model, origin: '--model' } } : {}),
    },
    say,
  );
  // A run's data is its own, in its folder: never a shared database (an eval's attempts run side
  // by side, each on its platform; a developer's shell may hold a deployment's URL).
  const { databaseUrl, ...ownHost } = config.host;
  if (databaseUrl) say('CARAVEL_DATABASE_URL is not used: a run keeps its data in its own folder');
  const provider = config.sandboxBroker.sandbox.provider;
  const bundles = await runBundleSelection(options, config.host.sweTools, provider);
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'caravel-run-')));
  if (options.dataDir === undefined) options.onTemporaryDir?.(dataDir);
  try {
    await mkdir(dataDir, { recursive: true });
    // The sandbox user (bubblewrap runs as nobody under root) must reach the sandboxes inside.
    await chmod(dataDir, 0o755);
    // A copy (for a --repo inside another repository) holds the run's branch: kept when the run
    // completes, removed when it fails or is stopped (a second Ctrl-C removes it too).
    const copyDir = await mkdtemp(join(tmpdir(), 'caravel-repo-'));
    options.onTemporaryDir?.(copyDir);
    let keepCopy = false;
    try {
      const repository = await localRepository(options.repo, { copyInto: copyDir });
      if (repository.copiedFrom)
        say(
          `${repository.copiedFrom} is not a git repository of its own: working on a copy at ${repository.path}`,
        );
      const toolBundles = await runBundlesFor(bundles, dataDir);
      if (toolBundles)
        say(`SWE-agent bundles ${toolBundles.bundles.map((b) => b.name).join(', ')} read`);
      const host = await bootEmbedded({ ...config, host: { ...ownHost, dataDir } }, runEnv, say, {
        handleSignals: false,
        ...(toolBundles ? { overrides: { toolBundles } } : {}),
      });
      try {
        const report = await drive(host, repository, options, status);
        keepCopy = report.outcome === 'completed' && repository.copiedFrom !== undefined;
        return report;
      } finally {
        status.stop();
        await closeWithin(host, config.host.shutdownGraceMs);
      }
    } finally {
      // Removed too when there was no copy to keep: a repository of its own is used in place.
      if (!keepCopy) await rm(copyDir, { recursive: true, force: true });
    }
  } finally {
    if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Closes the platform, giving in-flight work at most `graceMs` (an interrupted run may not end). */
async function closeWithin(host: ServiceHost, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    host.close().catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
  ]);
  clearTimeout(timer);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

async function drive(
  host: ServiceHost,
  repository: { path: string; name: string },
  options: RunOptions,
  status: RunStatus,
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
  status.line(`thread ${trigger.data.threadId}: ${options.task}`);
  status.set('waiting for the run to start');
  const runs = new RunRepository(database.db);
  const events = new RunEventRepository(database.db);
  const runId = runIdForTrigger(trigger.id);
  const progress = new RunProgress(status, runId, started);
  let endedAt: number | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    progress.show(await events.listByThread(trigger.data.threadId, progress.next()));
    const run = await runs.get(runId);
    const ended = run && run.finishedAt && run.status !== 'queued' && run.status !== 'running';
    endedAt = ended ? (endedAt ?? Date.now()) : null;
    // A run the runner concluded has its end on the bus: the index takes a run's events in
    // order, so once it holds the end every step is listed and counted. A run that ended before
    // a runner took it (stopped while queued) has no events to wait for.
    const indexed = progress.endShown || run?.concludedAt === null;
    const overdue = endedAt !== null && Date.now() - endedAt > INDEX_GRACE_MS;
    if (run && ended && (indexed || overdue)) {
      if (!indexed)
        status.line('  (the event index trails the run: its last steps are not listed)');
      status.stop();
      const trajectory = await trajectoryOf(events, trigger.data.threadId, runId, options);
      return {
        ...(await report(
          run,
          trigger.data.threadId,
          repository.path,
          progress.steps,
          started,
          status,
        )),
        totals: progress.totals,
        ...trajectory,
      };
    }
    status.tick();
    await sleep(POLL_MS, options.signal);
  }
}

/** With `options.trajectory`, the run's `.traj` written there (nothing when it has none). */
async function trajectoryOf(
  events: RunEventRepository,
  threadId: string,
  runId: string,
  options: RunOptions,
): Promise<{ trajectory?: string }> {
  const file = options.trajectory;
  if (file === undefined) return {};
  return (await writeRunTrajectory(events, threadId, runId, file)) ? { trajectory: file } : {};
}

async function report(
  run: RunRow,
  threadId: string,
  repository: string,
  steps: number,
  started: number,
  status: RunStatus,
): Promise<Omit<RunReport, 'totals'>> {
  const branch = `caravel/${threadId.slice(0, 8)}`;
  const diff = await branchDiff(repository, branch);
  const elapsed = ((Date.now() - started) / 1000).toFixed(1);
  status.line(`run ${run.status}: ${run.exitStatus ?? '?'} after ${steps} steps in ${elapsed} s`);
  status.line(
    diff === undefined
      ? `branch ${branch} was not pushed to ${repository}`
      : `branch ${branch} in ${repository}`,
  );
  if (diff) status.line(diff);
  // The reason is the last thing a failed run prints, after however long a diff.
  if (run.status !== 'completed') status.line(failureLine(run));
  return {
    exitStatus: run.exitStatus ?? '',
    outcome: run.status,
    branch,
    repository,
    diff,
    steps,
    reason: run.summary,
    threadId,
  };
}
