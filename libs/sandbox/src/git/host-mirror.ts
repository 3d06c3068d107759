import { pullRequestHeadRef } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { chmod, mkdir, stat } from 'node:fs/promises';
import { checkBundleObjects } from './bundle-objects.js';
import { BOT_IDENTITY_ENV, hostGit } from './host-git.js';
import type { RefExport } from './sandbox-export.js';

/** Where a sandbox's exported branch is kept in its mirror (never a branch of the remote's). */
export const WORK_REF_PREFIX = 'refs/caravel/work/';
/** Where a new sandbox's workdir starts, when it starts from another sandbox's commits. */
export const START_REF = 'refs/caravel/start';
/**
 * Set when the mirror started at a pull request's head ({@link HostMirror.fetchStart}): the
 * sandbox then holds someone else's files (a fork's), and its pushes are held to their rules.
 */
export const PULL_START_REF = 'refs/caravel/pull-start';

/** A branch name git accepts, refused otherwise (it becomes part of refs and refspecs). */
async function checkedBranch(branch: string): Promise<string> {
  const valid =
    !branch.startsWith('-') &&
    (await hostGit('/', ['check-ref-format', '--branch', branch]).then(
      () => true,
      () => false,
    ));
  if (!valid) throw new AppError('BAD_REQUEST', `${JSON.stringify(branch)} is not a branch name`);
  return branch;
}

/** What a push sends where, and how git reaches the remote (the credential proxy's options). */
export interface MirrorPush {
  readonly url: string;
  readonly branch: string;
  /** `-c` options placed before `push` (e.g. the proxy that adds the credential). */
  readonly gitArgs?: readonly string[];
  /** Kills the push (git and the helpers it started) when aborted, as `hostGit` does. */
  readonly signal?: AbortSignal;
}

/**
 * A sandbox's mirror: a bare repository the host creates and owns, beside the sandbox's
 * directories and out of its sight. It is how commits cross the boundary: a new workdir is
 * cloned from it, a sandbox's branch comes back into it as a bundle made inside the sandbox, and
 * pushes leave from it to the remote on record. Git on the host only ever runs here, with the
 * config the host wrote. Refs: `refs/heads/*` and tags are the remote as last seen (updated by
 * this mirror's own pushes), `refs/caravel/work/<branch>` the sandbox's branch as last exported.
 */
export class HostMirror {
  constructor(readonly path: string) {}

  /**
   * A mirror of the repository at `url` (every branch; `gitArgs` route git, e.g. a proxy); with
   * `signal`, git is killed when it aborts.
   */
  static async clone(
    path: string,
    url: string,
    gitArgs: readonly string[] = [],
    signal?: AbortSignal,
  ): Promise<HostMirror> {
    await HostMirror.makeDir(path);
    // `--`: a url that starts with `-` is a repository, never an option (`--upload-pack=…`).
    const args = [...gitArgs, 'clone', '--quiet', '--bare', '--', url, '.'];
    await hostGit(path, args, signal ? { signal } : {});
    return new HostMirror(path);
  }

  /** An empty mirror (nothing in it yet). */
  static async init(path: string): Promise<HostMirror> {
    await HostMirror.makeDir(path);
    await hostGit(path, ['init', '--quiet', '--bare', '--initial-branch=main']);
    return new HostMirror(path);
  }

  /** A mirror of a repository with one empty commit on `main` (work that starts from nothing). */
  static async empty(path: string): Promise<HostMirror> {
    await HostMirror.init(path);
    const tree = await hostGit(path, ['hash-object', '-t', 'tree', '-w', '/dev/null']);
    const start = await hostGit(path, ['commit-tree', tree, '-m', 'Start'], {
      env: BOT_IDENTITY_ENV,
    });
    await hostGit(path, ['update-ref', 'refs/heads/main', start]);
    return new HostMirror(path);
  }

  /** A mirror holding what `source` holds (another sandbox's, for a sandbox that starts there). */
  static async copy(path: string, source: HostMirror): Promise<HostMirror> {
    await HostMirror.makeDir(path);
    await hostGit(path, ['clone', '--quiet', '--bare', '--no-local', '--', source.path, '.']);
    return new HostMirror(path);
  }

  private static async makeDir(path: string): Promise<void> {
    await mkdir(path, { mode: 0o700 });
    await chmod(path, 0o700);
  }

  async exists(): Promise<boolean> {
    return (await stat(this.path).catch(() => undefined))?.isDirectory() === true;
  }

  /** True when the remote, as this mirror last saw it, has `branch`. */
  async hasBranch(branch: string): Promise<boolean> {
    const ref = `refs/heads/${await checkedBranch(branch)}`;
    return hostGit(this.path, ['rev-parse', '--verify', '--quiet', ref]).then(
      () => true,
      () => false,
    );
  }

  /**
   * Fetches a pull request's head from `url` (`refs/pull/<N>/head`, the only ref accepted: a fork's
   * branch as its base repository exposes it) into {@link START_REF}, where a new workdir starts.
   * Objects only cross: the fetch runs no hook and reads no config the remote sends. A ref the
   * repository does not have fails as `NOT_FOUND` (`start_ref_unavailable`), naming it.
   */
  async fetchStart(
    url: string,
    ref: string,
    gitArgs: readonly string[] = [],
    signal?: AbortSignal,
  ): Promise<string> {
    if (!pullRequestHeadRef.safeParse(ref).success) {
      throw new AppError('BAD_REQUEST', `${JSON.stringify(ref)} is not a pull request's head ref`);
    }
    const fetch = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', url];
    const killed = signal ? { signal } : {};
    await hostGit(this.path, [...gitArgs, ...fetch, `+${ref}:${START_REF}`], killed).catch(
      (error: unknown) => {
        if (signal?.aborted) throw error;
        const why = error instanceof Error ? error.message : String(error);
        throw new AppError('NOT_FOUND', `${ref} could not be fetched: ${why}`, {
          details: { reason: 'start_ref_unavailable', ref },
        });
      },
    );
    const start = await hostGit(this.path, ['rev-parse', '--verify', `${START_REF}^{commit}`]);
    await hostGit(this.path, ['update-ref', PULL_START_REF, start]);
    return start;
  }

  /** True when the mirror started at a pull request's head (see {@link PULL_START_REF}). */
  async startedAtPullRequest(): Promise<boolean> {
    return hostGit(this.path, ['rev-parse', '--verify', '--quiet', PULL_START_REF]).then(
      () => true,
      () => false,
    );
  }

  /**
   * The paths changed by the commits `ref` has and no branch of the remote has (as this mirror
   * last saw them): what a fork's pull request brings, each commit counted, not only its sum, and
   * a merge by what it changes beyond its parents (not what it merges in).
   */
  async pathsOnlyIn(ref: string): Promise<string[]> {
    const listed = await hostGit(this.path, [
      'log',
      '--format=',
      '--name-only',
      '--no-renames',
      // A merge counts what it changes against every parent (a change slipped into a merge).
      '--cc',
      ref,
      '--not',
      '--branches',
    ]);
    return [...new Set(listed.split('\n').filter(Boolean))];
  }

  /** Commits the mirror has at its refs' tips: what an export need not carry again. */
  async knownCommits(): Promise<string[]> {
    const tips = await hostGit(this.path, [
      'for-each-ref',
      '--format=%(objectname)',
      'refs/heads',
      WORK_REF_PREFIX,
      START_REF,
    ]);
    return [...new Set(tips.split('\n').filter(Boolean))].slice(0, 200);
  }

  /**
   * Takes in what a sandbox exported for `ref` and points `intoRef` at it; fails unless the
   * result is exactly the commit the sandbox reported. A bundle's objects are checked first
   * (`checkBundleObjects`): one malformed or malicious object and nothing of it enters the mirror.
   */
  async import(exported: RefExport, ref: string, intoRef: string): Promise<string> {
    if (exported.bundle) {
      await checkBundleObjects(this.path, exported.bundle);
      await hostGit(this.path, [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        exported.bundle,
        `+${ref}:${intoRef}`,
      ]);
    } else {
      await hostGit(this.path, ['cat-file', '-e', `${exported.tip}^{commit}`]);
      await hostGit(this.path, ['update-ref', intoRef, exported.tip]);
    }
    const at = await hostGit(this.path, ['rev-parse', '--verify', `${intoRef}^{commit}`]);
    if (at !== exported.tip) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `the sandbox's bundle holds ${at} for ${ref}, not the reported ${exported.tip}`,
      );
    }
    return at;
  }

  /** The work ref a sandbox branch is imported into. */
  async workRef(branch: string): Promise<string> {
    return `${WORK_REF_PREFIX}${await checkedBranch(branch)}`;
  }

  /**
   * Pushes the exported `branch` to `url`, leased on the remote branch as this mirror last saw
   * it (absent: it must not exist yet), so a push never overwrites commits someone else made.
   * A branch deleted on the remote since (its pull request closed or merged, the branch removed)
   * holds nobody's commits: the push then creates it again instead of failing on a stale lease.
   * A push killed by a stop leaves the mirror's branch where it was, so the next push (the
   * caller's retry, on another broker) is leased as this one was; one that had reached the remote
   * finds it at the commit already, which git answers as up to date before it looks at the lease.
   */
  async push(push: MirrorPush): Promise<string> {
    const branch = await checkedBranch(push.branch);
    const head = `refs/heads/${branch}`;
    const commit = await hostGit(this.path, [
      'rev-parse',
      '--verify',
      `${await this.workRef(branch)}^{commit}`,
    ]);
    const seen = await hostGit(this.path, ['rev-parse', '--verify', '--quiet', head]).catch(
      () => '',
    );
    const killed = push.signal ? { signal: push.signal } : {};
    const leased = (expected: string) =>
      hostGit(
        this.path,
        [
          ...(push.gitArgs ?? []),
          'push',
          '--quiet',
          '--no-verify',
          `--force-with-lease=${head}:${expected}`,
          push.url,
          `${commit}:${head}`,
        ],
        killed,
      );
    await leased(seen).catch(async (error: unknown) => {
      if (push.signal?.aborted) throw error;
      if (!seen || !(await this.remoteLacks(push, head))) throw error;
      await leased('');
    });
    await hostGit(this.path, ['update-ref', head, commit]);
    return commit;
  }

  /** True when the remote answers that it has no `ref` (false when it has it, or cannot say). */
  private async remoteLacks(push: MirrorPush, ref: string): Promise<boolean> {
    const listed = await hostGit(
      this.path,
      [...(push.gitArgs ?? []), 'ls-remote', push.url, ref],
      push.signal ? { signal: push.signal } : {},
    ).catch(() => null);
    return listed === '';
  }
}
