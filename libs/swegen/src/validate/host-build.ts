import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readFile } from 'node:fs/promises';
import { join, posix, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { swegenError } from '../errors/swegen-errors.js';
import { GitRunner } from '../git/git-runner.js';
import { openBuildEgress, type BuildEgress, type BuildEgressOptions } from './build-egress.js';
import { parseDockerfile, planHostBuild, type BuildStep } from './dockerfile-plan.js';
import { runInTaskSandbox, TASK_SANDBOX_OWNER } from './task-sandbox.js';

const run = promisify(execFile);

/** The built environment: a host directory standing for the image's filesystem. */
export interface BuiltEnvironment {
  /** Host directory mounted at /app (the repository at /app/src). */
  readonly appDir: string;
  /** The image's final WORKDIR, where the agent and verifier start. */
  readonly workdir: string;
  readonly logFile: string;
}

/** What the build needs. */
export interface HostBuildInput {
  readonly taskDir: string;
  /** A local clone holding the PR head (the Dockerfile's fetch is replaced by a checkout from it). */
  readonly repoPath: string;
  /** A fresh directory, traversable by the sandbox owner, to build in. */
  readonly workDir: string;
  readonly timeoutMs: number;
  readonly bwrapPath?: string;
  /** What RUN steps may reach through the egress proxy (default: the package registries). */
  readonly egress?: BuildEgressOptions;
  /** Stops the build (its sandboxed RUN killed); the build rejects with the reason. */
  readonly signal?: AbortSignal;
}

/** Gives a tree to the unprivileged identity bubblewrap runs as (only when this process is root). */
export async function chownToSandbox(path: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await run('chown', ['-R', `${TASK_SANDBOX_OWNER.uid}:${TASK_SANDBOX_OWNER.gid}`, path]);
}

/** Maps a path inside the task sandbox to the host, for the writable trees the build has. */
function hostPath(workDir: string, inner: string): string {
  const normal = posix.resolve('/', inner);
  for (const root of ['/app', '/tmp', '/root']) {
    if (normal === root || normal.startsWith(`${root}/`)) return join(workDir, normal);
  }
  throw swegenError(
    'invalid_input',
    `the host build can only write under /app, /tmp or /root, not ${inner}`,
  );
}

async function checkout(
  input: HostBuildInput,
  step: Extract<BuildStep, { kind: 'source' }>,
): Promise<void> {
  const target = hostPath(input.workDir, step.target);
  await new GitRunner(input.workDir).bytes([
    'clone',
    '--quiet',
    '--no-checkout',
    resolve(input.repoPath),
    target,
  ]);
  const git = new GitRunner(target);
  if (!(await git.succeeds(['cat-file', '-e', `${step.sha}^{commit}`]))) {
    throw swegenError(
      'invalid_input',
      `${input.repoPath} does not hold the task's head commit ${step.sha}`,
    );
  }
  await git.bytes(['checkout', '--quiet', '--detach', step.sha]);
}

async function copyIn(
  input: HostBuildInput,
  step: Extract<BuildStep, { kind: 'copy' }>,
): Promise<void> {
  const context = join(input.taskDir, 'environment');
  const destInner = posix.resolve(step.cwd, step.dest);
  const intoDir = step.dest.endsWith('/') || step.sources.length > 1;
  for (const source of step.sources) {
    const from = resolve(context, source);
    if (relative(context, from).startsWith('..'))
      throw swegenError('invalid_input', `COPY ${source} leaves the build context`);
    const to = hostPath(
      input.workDir,
      intoDir ? posix.join(destInner, posix.basename(source)) : destInner,
    );
    await cp(from, to, { recursive: true });
  }
}

/** A RUN step in a task sandbox whose only way out is the build's egress proxy. */
async function runStep(
  input: HostBuildInput,
  step: Extract<BuildStep, { kind: 'run' }>,
  egress: BuildEgress,
  deadline: number,
): Promise<void> {
  const logFile = join(input.workDir, 'build.log');
  const result = await runInTaskSandbox(
    {
      command: step.command,
      cwd: step.cwd,
      mounts: ['app', 'tmp', 'root'].map((d) => ({ host: join(input.workDir, d), inner: `/${d}` })),
      egress,
      env: { ...step.env, ...egress.environment },
      timeoutMs: Math.max(1, deadline - Date.now()),
      logFile,
      ...(input.signal ? { signal: input.signal } : {}),
    },
    input.bwrapPath,
  );
  const refused = egress.takeRefusals();
  if (refused.length > 0)
    await appendFile(logFile, refused.map((r) => `### egress proxy refused ${r}\n`).join(''));
  if (result.exitCode !== 0) {
    const why = result.timedOut ? 'the build timed out' : `exit ${result.exitCode}`;
    throw swegenError(
      'validation_failed',
      `environment build failed at RUN ${step.command.slice(0, 120)} (${why}); see ${logFile}`,
    );
  }
}

/**
 * Builds a task's environment on the host: its Dockerfile is interpreted (see `planHostBuild`),
 * the repository checked out from a local clone instead of fetched, and every RUN executed in a
 * task sandbox that sees only the read-only system, /app, /tmp and /root, with no network of the
 * host's: its only way out is an egress proxy (see `openBuildEgress`) that passes the package
 * registries of the allowlist, so dependency installs work while the host's 127.0.0.1 services
 * stay out of reach. Fails with VALIDATION_FAILED naming the line.
 */
export async function buildOnHost(input: HostBuildInput): Promise<BuiltEnvironment> {
  const text = await readFile(join(input.taskDir, 'environment', 'Dockerfile'), 'utf8');
  const instructions = parseDockerfile(text);
  const workdir = posix.resolve(
    '/',
    instructions
      .filter((i) => i.keyword === 'WORKDIR')
      .at(-1)
      ?.args.trim() ?? '/app/src',
  );
  const logFile = join(input.workDir, 'build.log');
  for (const dir of ['app', 'tmp', 'root'])
    await mkdir(join(input.workDir, dir), { recursive: true });
  const deadline = Date.now() + input.timeoutMs;
  const egress = await openBuildEgress(input.egress);
  try {
    let handedOver = false;
    for (const step of planHostBuild(instructions)) {
      input.signal?.throwIfAborted();
      await appendFile(logFile, `### ${describe(step)}\n`);
      if (step.kind === 'source' || step.kind === 'copy') handedOver = false;
      if (step.kind === 'source') await checkout(input, step);
      else if (step.kind === 'copy') await copyIn(input, step);
      else if (step.kind === 'run') {
        await mkdir(hostPath(input.workDir, step.cwd), { recursive: true });
        if (!handedOver) await chownToSandbox(input.workDir);
        handedOver = true;
        await runStep(input, step, egress, deadline);
      }
    }
  } finally {
    await egress.close();
  }
  await chownToSandbox(input.workDir);
  return { appDir: join(input.workDir, 'app'), workdir, logFile };
}

function describe(step: BuildStep): string {
  switch (step.kind) {
    case 'source':
      return `checkout ${step.sha} of ${step.url} into ${step.target} (from the local clone)`;
    case 'copy':
      return `COPY ${step.sources.join(' ')} ${step.dest}`;
    case 'run':
      return `RUN ${step.command} (in ${step.cwd}, network through the egress proxy)`;
    case 'skip':
      return `skipped line ${step.line}: ${step.text.slice(0, 160)} (${step.why})`;
  }
}
