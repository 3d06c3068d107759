import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { swegenError, swegenErrorReason } from '../errors/swegen-errors.js';
import type { GitRunner } from '../git/git-runner.js';
import { FarmState } from '../farm/farm-state.js';
import {
  mirrorPathFor,
  readStateFile,
  writeStateFile,
  type StateStore,
} from '../farm/state-store.js';
import { publishGit, repoSlug, type ResolvedPublishConfig } from './publish-config.js';

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Farm state on the dataset repository: `state/<owner>__<repo>.json` alone on the orphan branch
 * `farm-state/<owner>__<repo>`, in a linked worktree `<clone>-state` of the dataset clone (so a
 * state push never disturbs the task branch being built), mirrored to the local file first.
 * `load` merges mirror and branch (the newer `last_updated` receives; a tie favours the mirror).
 * A rejected push merges the remote state in (union of sets, newer cursor) and pushes once more;
 * under `reset` the first save force-pushes instead, later saves merge.
 */
export class GitStateStore implements StateStore {
  readonly mirrorPath: string;
  readonly branch: string;
  private readonly worktree: string;
  private readonly file: string;
  private readonly git: GitRunner;
  private saves = 0;

  constructor(
    private readonly config: ResolvedPublishConfig,
    private readonly clone: GitRunner,
    private readonly repo: string,
    stateDir: string,
    private readonly options: { reset?: boolean; now?: () => Date } = {},
  ) {
    this.mirrorPath = mirrorPathFor(stateDir, repo);
    this.branch = `${config.stateBranchPrefix}${repoSlug(repo)}`;
    this.worktree = `${config.cloneDir}-state`;
    this.file = `${config.statePath}/${repoSlug(repo)}.json`;
    this.git = publishGit(config, this.worktree);
  }

  async load(): Promise<FarmState> {
    return this.guard(async () => {
      const remote = await this.setUp();
      const fresh = new FarmState(this.repo, this.options.now);
      if (this.options.reset) return fresh;
      const mirror = await readStateFile(this.mirrorPath, this.options.now);
      if (!mirror || !remote) return mirror ?? remote ?? fresh;
      const [receiver, other] =
        remote.lastUpdated > mirror.lastUpdated ? [remote, mirror] : [mirror, remote];
      receiver.mergeFrom(other);
      return receiver;
    });
  }

  async save(state: FarmState): Promise<void> {
    await writeStateFile(this.mirrorPath, state);
    const first = this.saves === 0;
    this.saves += 1;
    await this.guard(async () => {
      await this.commit(state);
      if (await this.push(false)) return;
      if (this.options.reset && first) {
        if (await this.push(true)) return;
        throw swegenError('publish_error', `force-pushing ${this.branch} (reset) was refused`);
      }
      await this.git.bytes(['fetch', '--quiet', 'origin', this.branch]);
      await this.git.bytes(['reset', '--quiet', '--hard', `origin/${this.branch}`]);
      const theirs = await readStateFile(join(this.worktree, this.file), this.options.now);
      if (theirs) state.mergeFrom(theirs);
      await writeStateFile(this.mirrorPath, state);
      await this.commit(state);
      if (!(await this.push(false)))
        throw swegenError('publish_error', `pushing ${this.branch} was refused twice`);
    });
  }

  /** Creates or refreshes the worktree; returns the state on the branch, if there is one. */
  private async setUp(): Promise<FarmState | undefined> {
    const onRemote = await this.clone.succeeds([
      'fetch',
      '--quiet',
      'origin',
      `+refs/heads/${this.branch}:refs/remotes/origin/${this.branch}`,
    ]);
    if (!(await exists(join(this.worktree, '.git')))) {
      await this.clone.bytes(['worktree', 'prune']);
      await this.clone.bytes(['worktree', 'add', '--quiet', '--detach', this.worktree]);
      if (onRemote) {
        await this.git.bytes(['checkout', '--quiet', '-B', this.branch, `origin/${this.branch}`]);
      } else {
        await this.git.bytes(['checkout', '--quiet', '--orphan', this.branch]);
        if ((await readdir(this.worktree)).some((name) => name !== '.git'))
          await this.git.bytes(['rm', '-r', '--quiet', '--force', '--', '.']);
      }
    } else if (onRemote) {
      await this.git.bytes([
        'checkout',
        '--quiet',
        '--force',
        '-B',
        this.branch,
        `origin/${this.branch}`,
      ]);
    }
    return onRemote ? readStateFile(join(this.worktree, this.file), this.options.now) : undefined;
  }

  private async commit(state: FarmState): Promise<void> {
    await writeStateFile(join(this.worktree, this.file), state);
    await this.git.bytes(['add', '--force', '--', this.file]);
    if (await this.git.succeeds(['diff', '--cached', '--quiet'])) return;
    const last = state.cursor.prNumber ?? 'none';
    await this.git.bytes([
      'commit',
      '--quiet',
      '--no-verify',
      '-m',
      `Update farm state: ${this.repo} (PR #${last})`,
    ]);
  }

  private push(force: boolean): Promise<boolean> {
    return this.git.succeeds([
      'push',
      '--quiet',
      ...(force ? ['--force'] : []),
      'origin',
      `HEAD:refs/heads/${this.branch}`,
    ]);
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (swegenErrorReason(error) === 'publish_error') throw error;
      throw swegenError(
        'publish_error',
        `farm state on ${this.config.repo}@${this.branch}: ${(error as Error).message}`,
      );
    }
  }
}
