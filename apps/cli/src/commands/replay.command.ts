import {
  actionsFromTraj,
  comparePatches,
  isMiniSweAgentTraj,
  observationDifference,
  predictionOf,
  readTrajectoryFile,
  replayActions,
  replayStartOf,
  replayTools,
  type PatchComparison,
  type PatchDifference,
  type ReplayStepOutcome,
  type Traj,
} from '@caravel/agent';
import { AppError, isAppError } from '@caravel/errors';
import {
  BwrapSandboxProvider,
  BOT_IDENTITY,
  LocalSandboxProvider,
  prepareWorkspace,
  ToolSandboxAdapter,
  type SandboxBind,
  type SandboxProvider,
} from '@caravel/sandbox';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { isThreadId } from './cli-args.js';
import { localRepository } from './local-repository.js';
import { missingSandboxTools } from './preflight.js';
import { installSweTools, prepareSweTools, type BundleSelection } from './replay-bundles.js';
import { trajectoryOfThread, type EventStoreOptions } from './trajectory.command.js';

/** The identity bubblewrap runs as when this process is root (as the agent runner does). */
const SANDBOX_OWNER = { uid: 65534, gid: 65534 };

/** Options of `caravel replay`. */
export interface ReplayCommandOptions extends EventStoreOptions, BundleSelection {
  /**
   * A thread id (read from the event index) or a trajectory file: Caravel's or SWE-agent's
   * `.traj` (1.x or 0.x), a SWE-agent `.demo.yaml`, or a mini-swe-agent `.traj.json`.
   */
  source: string;
  /** The starting repository, instead of the recorded clone URL. */
  repo?: string;
  /** The starting commit, instead of the recorded one (or the repository's HEAD). */
  base?: string;
  sandbox?: 'bwrap' | 'local';
  stopOnMismatch?: boolean;
  write?: (line: string) => void;
  /** The PATH bubblewrap is looked for on before anything starts (unset: not looked for). */
  path?: string;
}

/** What a replay found. */
export interface ReplayReport {
  /** SWE-agent's verdict: equal after CRLF → LF and stripping surrounding whitespace. */
  identical: boolean;
  /** The same bytes. */
  byteIdentical: boolean;
  difference: PatchDifference;
  /** Empty when the bytes are equal; otherwise the kind of difference and what differs. */
  summary: string;
  recorded: string | null;
  patch: string | null;
  steps: ReplayStepOutcome[];
  mismatches: number;
}

/** A mini-swe-agent run records its patch in the batch's `preds.json` (beside it or one up). */
async function withPrediction(traj: Traj, file: string): Promise<Traj> {
  if (traj.info.submission !== null || !isMiniSweAgentTraj(traj)) return traj;
  const instanceId = basename(file).replace(/\.traj(\.json)?$/, '');
  for (const dir of [dirname(file), dirname(dirname(file))]) {
    const text = await readFile(join(dir, 'preds.json'), 'utf8').catch(() => null);
    const patch = text === null ? null : predictionOf(JSON.parse(text) as unknown, instanceId);
    if (patch !== null) return { ...traj, info: { ...traj.info, submission: patch } };
  }
  return traj;
}

/** Trajectory files by name: SWE-agent's `.traj`/`.demo.yaml`, mini-swe-agent's `.traj.json`. */
const TRAJECTORY_FILE = /\.(traj|json|ya?ml)$/;

async function loadTraj(options: ReplayCommandOptions): Promise<{ traj: Traj; name: string }> {
  const isFile = (await stat(options.source).catch(() => undefined))?.isFile() === true;
  if (isFile) {
    const traj = readTrajectoryFile(await readFile(options.source, 'utf8'), options.source);
    return { traj: await withPrediction(traj, options.source), name: options.source };
  }
  if (TRAJECTORY_FILE.test(options.source))
    throw new AppError('NOT_FOUND', `${options.source}: no such file`);
  if (!isThreadId(options.source))
    throw new AppError(
      'BAD_REQUEST',
      `${options.source} is neither a file nor a thread id (a UUID, as \`caravel run\` prints it)`,
    );
  const found = await trajectoryOfThread({ ...options, threadId: options.source });
  return { traj: found.traj, name: `thread ${found.threadId} run ${found.runId}` };
}

/** Clones the starting repository into the sandbox's workdir, on `branch` at the base commit. */
async function prepare(
  workdir: string,
  cloneUrl: string,
  base: string | null,
  branch: string,
  owned: boolean,
) {
  const prepared = await prepareWorkspace({
    workdir,
    cloneUrl,
    branch,
    ...(base ? { startAt: base } : {}),
    ...(owned ? { owner: SANDBOX_OWNER } : {}),
  }).catch((error: unknown) => {
    throw isAppError(error) && error.code === 'NOT_FOUND'
      ? new AppError('NOT_FOUND', `${error.message} (pass --repo or --base)`)
      : error;
  });
  return prepared.baseCommit;
}

function providerFor(
  kind: 'bwrap' | 'local',
  rootDir: string,
  binds: readonly SandboxBind[] = [],
): SandboxProvider {
  if (kind === 'local')
    return new LocalSandboxProvider({ rootDir, logger: { warn: () => undefined } });
  return new BwrapSandboxProvider({ rootDir, runAs: SANDBOX_OWNER, binds });
}

/** Refuses a bwrap replay on a host without bubblewrap, saying what to install or pass instead. */
function assertSandboxAvailable(kind: 'bwrap' | 'local', path: string | undefined): void {
  const missing = missingSandboxTools(
    { provider: kind, egress: 'none' },
    path,
    'pass --sandbox local (no isolation)',
  );
  if (missing) throw new AppError('PRECONDITION_FAILED', missing);
}

function describe(outcome: ReplayStepOutcome): string {
  const { action, verdict } = outcome;
  // A state may hold a whole diff (SWE-agent's diff_state): the line shows its start.
  const shown = outcome.state ? JSON.stringify(outcome.state) : '';
  const state = shown ? `; state ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown}` : '';
  const mark =
    verdict === 'differs'
      ? `differs at ${observationDifference(action.recorded ?? '', outcome.observation)}`
      : verdict === 'same'
        ? 'same'
        : 'not recorded';
  const inner = action.subagent;
  const by = inner ? ` (subagent ${inner.runId.slice(0, 8)} step ${inner.step}.${inner.call})` : '';
  return `  step ${action.step}.${action.call}${by} ${action.name}: ${outcome.ok ? 'ok' : 'error'}, observation ${mark}${state}`;
}

function verdictLine(comparison: PatchComparison): string {
  switch (comparison.difference) {
    case 'none':
      return 'the replayed patch is identical to the recorded submission';
    case 'whitespace':
      return `the replayed patch equals the recorded submission (normalised):\n${comparison.summary}`;
    case 'index':
    case 'content':
      return `the replayed patch differs from the recorded submission:\n${comparison.summary}`;
  }
}

/** The repository to start from: `--repo` (copied like `caravel run` does when needed) or the recorded one. */
async function startingPoint(
  options: ReplayCommandOptions,
  recorded: { cloneUrl: string | null; baseCommit: string | null },
  name: string,
  write: (line: string) => void,
  copyInto: string,
) {
  if (options.repo === undefined) {
    if (recorded.cloneUrl === null) {
      throw new AppError(
        'BAD_REQUEST',
        `${name} does not say which repository it started from: pass --repo PATH`,
      );
    }
    return { cloneUrl: recorded.cloneUrl, base: options.base ?? recorded.baseCommit };
  }
  const repository = await localRepository(options.repo, { copyInto });
  if (repository.copiedFrom === undefined)
    return { cloneUrl: repository.path, base: options.base ?? recorded.baseCommit };
  // A fresh copy has only its own first commit: the recorded one cannot be in it.
  write(
    `${repository.copiedFrom} is not a git repository of its own: starting from a copy at its HEAD`,
  );
  return { cloneUrl: repository.path, base: options.base ?? null };
}

/** The bundles to install (staged under `rootDir`) and the calls to replay with their commands. */
async function sweActions(
  options: ReplayCommandOptions,
  traj: Traj,
  name: string,
  rootDir: string,
) {
  const tools = await prepareSweTools(options, traj, name, rootDir);
  const commands = tools?.bundles.flatMap((bundle) => bundle.config.commands) ?? [];
  const actions = actionsFromTraj(traj, name, {
    commands,
    bundleSubmit: commands.some((command) => command.name === 'submit'),
  });
  return { tools, actions };
}

/**
 * `caravel replay`: re-executes a recorded run's tool calls in a fresh sandbox prepared at the
 * recorded starting point, then compares the final patch with the recorded submission as
 * SWE-agent does (CRLF → LF, stripped), reporting byte equality apart.
 */
export async function replayTrajectory(options: ReplayCommandOptions): Promise<ReplayReport> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  if (options.path !== undefined) assertSandboxAvailable(options.sandbox ?? 'bwrap', options.path);
  const { traj, name } = await loadTraj(options);
  const start = replayStartOf(traj);
  const kind = options.sandbox ?? 'bwrap';
  if (kind === 'local' && (options.toolsDir !== undefined || (options.bundles ?? []).length > 0))
    throw new AppError(
      'BAD_REQUEST',
      'SWE-agent bundles need --sandbox bwrap (a local sandbox cannot show /root/tools or /<repo>)',
    );
  // Everything the replay makes (a copy of --repo, staged bundles, the sandbox) lives here.
  const rootDir = await mkdtemp(join(tmpdir(), 'caravel-replay-'));
  await chmod(rootDir, 0o755);
  const { tools, actions } = await sweActions(options, traj, name, rootDir).catch(async (error) => {
    await rm(rootDir, { recursive: true, force: true });
    throw error;
  });
  const provider = providerFor(kind, rootDir, tools?.binds);
  const env = {
    GIT_AUTHOR_NAME: BOT_IDENTITY.name,
    GIT_AUTHOR_EMAIL: BOT_IDENTITY.email,
    GIT_COMMITTER_NAME: BOT_IDENTITY.name,
    GIT_COMMITTER_EMAIL: BOT_IDENTITY.email,
  };
  let sandbox: Awaited<ReturnType<typeof provider.create>> | undefined;
  try {
    const { cloneUrl, base: wanted } = await startingPoint(options, start, name, write, rootDir);
    sandbox = await provider.create({ id: 'replay', env });
    const branch = start.branch ?? 'caravel/replay';
    const owned = kind === 'bwrap' && process.getuid?.() === 0;
    const base = await prepare(
      join(rootDir, sandbox.id, 'workspace'),
      cloneUrl,
      wanted,
      branch,
      owned,
    );
    write(
      `replaying ${actions.length} calls from ${name} on ${cloneUrl} at ${base.slice(0, 12)} (${kind})`,
    );
    const swe = tools ? await installSweTools(tools, sandbox, write) : {};
    const adapter = new ToolSandboxAdapter(sandbox, base);
    const result = await replayActions(
      actions,
      replayTools(adapter, { branch, pullRequestUrl: `${cloneUrl}#${branch}` }),
      adapter,
      {
        ...(options.stopOnMismatch ? { stopOnMismatch: true } : {}),
        ...swe,
        onStep: (outcome) => write(describe(outcome)),
      },
    );
    const recorded = traj.info.submission ?? null;
    const comparison = comparePatches(recorded, result.patch);
    write(verdictLine(comparison));
    return {
      ...comparison,
      recorded,
      patch: result.patch,
      steps: result.outcomes,
      mismatches: result.mismatches.length,
    };
  } finally {
    if (sandbox) {
      await sandbox.close();
      await provider.delete(sandbox.id).catch(() => undefined);
    }
    await rm(rootDir, { recursive: true, force: true });
  }
}
