import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readFile } from 'node:fs/promises';
import { join, posix, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { swegenError } from '../errors/swegen-errors.js';
import { GitRunner } from '../git/git-runner.js';
import { parseDockerfile, planHostBuild, type BuildStep } from './dockerfile-plan.js';
import { runInTaskSandbox, TASK_SANDBOX_OWNER, type TaskMount } from './task-sandbox.js';

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

/**
 * Builds a task's environment on the host: its Dockerfile is interpreted (see `planHostBuild`),
 * the repository checked out from a local clone instead of fetched, and every RUN executed in a
 * task sandbox that shares the host's network (so dependency installs work) but sees only the
 * read-only system, /app, /tmp and /root. Fails with VALIDATION_FAILED naming the line.
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
  const mounts: TaskMount[] = ['app', 'tmp', 'root'].map((d) => ({
    host: join(input.workDir, d),
    inner: `/${d}`,
  }));
  const deadline = Date.now() + input.timeoutMs;
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
      const result = await runInTaskSandbox(
        {
          command: step.command,
          cwd: step.cwd,
          mounts,
          network: true,
          env: step.env,
          timeoutMs: Math.max(1, deadline - Date.now()),
          logFile,
          ...(input.signal ? { signal: input.signal } : {}),
        },
        input.bwrapPath,
      );
      if (result.exitCode !== 0) {
        const why = result.timedOut ? 'the build timed out' : `exit ${result.exitCode}`;
        throw swegenError(
          'validation_failed',
          `environment build failed at RUN ${step.command.slice(0, 120)} (${why}); see ${logFile}`,
        );
      }
    }
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
      return `RUN ${step.command} (in ${step.cwd}, network shared)`;
    case 'skip':
      return `skipped line ${step.line}: ${step.text.slice(0, 160)} (${step.why})`;
  }
}
