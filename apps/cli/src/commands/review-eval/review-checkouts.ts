import { AppError } from '@caravel/errors';
import {
  BOT_IDENTITY_ENV,
  BwrapSandboxProvider,
  hostGit,
  LocalSandboxProvider,
  prepareWorkspace,
  type Sandbox,
  type SandboxProvider,
} from '@caravel/sandbox';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { missingSandboxTools } from '../preflight.js';
import type { LoadedCase } from './review-set-files.js';

/** The identity bubblewrap runs as when this process is root (as the agent runner does). */
const SANDBOX_OWNER = { uid: 65534, gid: 65534 };

/** A case's pull request in its repository's mirror: the commits, and the branch at its base. */
export interface CaseCommits {
  mirror: string;
  baseSha: string;
  headSha: string;
  /** The branch at the base, as the review checkout's `origin` has it. */
  baseBranch: string;
}

const SHA = /^[0-9a-f]{7,40}$/i;

/** Git's several lines of complaint as one. */
const oneLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join('; ');

/**
 * The cases' repositories, each cloned once (bare) into a scratch folder, where each case's base
 * and head become branches (`review-eval/<case>/base|head`, a patch committed on the base), so
 * that a checkout of the mirror holds every case's commits.
 */
export class CaseRepositories {
  private readonly mirrors = new Map<string, Promise<string>>();

  constructor(private readonly scratch: string) {}

  /** The case's base and head, settled in its repository's mirror; a bad ref is a one-line error. */
  async commitsOf(c: LoadedCase): Promise<CaseCommits> {
    const mirror = await this.mirrorOf(c.repository);
    const baseSha = await this.resolve(mirror, c, 'base', c.base);
    const headSha = c.patch
      ? await this.commitPatch(mirror, c, baseSha, c.patch)
      : await this.resolve(mirror, c, 'head', c.head ?? '');
    if (headSha === baseSha)
      throw new AppError('BAD_REQUEST', `case ${c.id}: its head is its base: nothing to review`);
    const branch = `review-eval/${c.id}`;
    await hostGit(mirror, ['update-ref', `refs/heads/${branch}/base`, baseSha]);
    await hostGit(mirror, ['update-ref', `refs/heads/${branch}/head`, headSha]);
    return { mirror, baseSha, headSha, baseBranch: `${branch}/base` };
  }

  private mirrorOf(repository: string): Promise<string> {
    let mirror = this.mirrors.get(repository);
    if (!mirror) {
      const dir = join(this.scratch, 'mirrors', String(this.mirrors.size));
      mirror = mkdir(dir, { recursive: true })
        .then(() => hostGit(dir, ['clone', '--quiet', '--bare', '--no-local', repository, '.']))
        .then(
          () => dir,
          (error: unknown) => {
            throw new AppError(
              'BAD_REQUEST',
              `repository ${repository} cannot be cloned: ${(error as Error).message}`,
            );
          },
        );
      this.mirrors.set(repository, mirror);
    }
    return mirror;
  }

  /** A ref or commit of the mirror; a commit only the remote has is fetched (a pull request's). */
  private async resolve(mirror: string, c: LoadedCase, what: string, ref: string) {
    const commit = () => hostGit(mirror, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    const found = await commit().catch(() => null);
    if (found) return found;
    const fetched = await hostGit(mirror, ['fetch', '--quiet', 'origin', ref])
      .then(() => hostGit(mirror, ['rev-parse', '--verify', '--quiet', 'FETCH_HEAD^{commit}']))
      .catch(() => null);
    if (fetched && (!SHA.test(ref) || fetched.startsWith(ref.toLowerCase()))) return fetched;
    throw new AppError(
      'BAD_REQUEST',
      `case ${c.id}: ${what} '${ref}' is not a commit of ${c.repository}`,
    );
  }

  /** The patch committed on the base (through an index of its own: the mirror has no tree). */
  private async commitPatch(mirror: string, c: LoadedCase, baseSha: string, patch: string) {
    const dir = join(this.scratch, 'patches', c.id);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'patch.diff');
    await writeFile(file, patch.endsWith('\n') ? patch : `${patch}\n`);
    const env = { ...BOT_IDENTITY_ENV, GIT_INDEX_FILE: join(dir, 'index') };
    try {
      await hostGit(mirror, ['read-tree', baseSha], { env });
      await hostGit(mirror, ['apply', '--cached', '--whitespace=nowarn', file], { env });
      const tree = await hostGit(mirror, ['write-tree'], { env });
      const message = c.title ?? `review-eval ${c.id}`;
      return await hostGit(mirror, ['commit-tree', tree, '-p', baseSha, '-m', message], { env });
    } catch (error) {
      throw new AppError(
        'BAD_REQUEST',
        `case ${c.id}: its patch does not apply on ${baseSha.slice(0, 12)}: ${oneLine((error as Error).message)}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Which sandbox the reviewer reads a case's files in. */
export type ReviewSandboxKind = 'bwrap' | 'local';

/** Refuses bwrap on a host without bubblewrap, saying what to install or pass instead. */
export function assertSandboxAvailable(kind: ReviewSandboxKind, path: string | undefined): void {
  const missing = missingSandboxTools(
    { provider: kind, egress: 'none' },
    path,
    'pass --sandbox local (no isolation)',
  );
  if (missing) throw new AppError('PRECONDITION_FAILED', missing);
}

/** The sandboxes cases are reviewed in, under `rootDir` (traversable by the sandbox user). */
export function sandboxProviderFor(kind: ReviewSandboxKind, rootDir: string): SandboxProvider {
  if (kind === 'local')
    return new LocalSandboxProvider({ rootDir, logger: { warn: () => undefined } });
  return new BwrapSandboxProvider({ rootDir, runAs: SANDBOX_OWNER });
}

/**
 * A sandbox holding a clone of the case's mirror (no network, no remote reachable from inside:
 * every commit the review needs is already there), checked out at the base; the reviewer checks
 * out the head itself. Closed and deleted by the returned `release`.
 */
export async function caseSandbox(
  provider: SandboxProvider,
  rootDir: string,
  id: string,
  commits: CaseCommits,
): Promise<{ sandbox: Sandbox; release: () => Promise<void> }> {
  const sandbox = await provider.create({ id, env: BOT_IDENTITY_ENV });
  const release = async () => {
    await sandbox.close().catch(() => undefined);
    await provider.delete(sandbox.id).catch(() => undefined);
  };
  try {
    const owned = provider.name === 'bwrap' && process.getuid?.() === 0;
    await prepareWorkspace({
      workdir: join(rootDir, sandbox.id, 'workspace'),
      cloneUrl: commits.mirror,
      branch: 'review-eval',
      startAt: commits.baseSha,
      ...(owned ? { owner: SANDBOX_OWNER } : {}),
    });
    return { sandbox, release };
  } catch (error) {
    await release();
    throw error;
  }
}
