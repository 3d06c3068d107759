import type { RepositoryRef } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  brokerStopping,
  exportRef,
  HostMirror,
  START_REF,
  type OneShotRunner,
} from '@caravel/sandbox';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitHubGit } from './github-git.js';
import { recognizeWorkflowRefusal } from './workflow-refusal.js';

/** GitHub Actions' definitions: workflows, and the local actions they run. */
const CI_DEFINITIONS = /^\.github\/(workflows|actions)\//;
const isCiDefinition = (path: string): boolean => CI_DEFINITIONS.test(path);

/**
 * A sandbox started at a pull request's head (a fork's) holds files its author wrote, and an
 * agent they misled can write CI definitions itself: its branch may not bring any in, whoever
 * committed them, or they would run here with the repository's secrets (`FORBIDDEN`,
 * `push_changes_ci`), as its start was refused for the same (`start_ref_changes_ci`).
 */
async function refuseCiFromPullStart(mirror: HostMirror, workRef: string): Promise<void> {
  if (!(await mirror.startedAtPullRequest())) return;
  const ci = (await mirror.pathsOnlyIn(workRef)).filter(isCiDefinition);
  if (ci.length === 0) return;
  throw new AppError(
    'FORBIDDEN',
    `the branch changes ${ci.slice(0, 5).join(', ')}${ci.length > 5 ? ', …' : ''}: work started ` +
      "on a fork's pull request may not push CI definitions, which would run here with the " +
      "repository's secrets; take those changes out, or ask a maintainer to make them",
    { details: { reason: 'push_changes_ci', paths: ci.slice(0, 20) } },
  );
}

/** Where a new sandbox's repository comes from. */
export type MirrorSource =
  | {
      readonly kind: 'repository';
      readonly repository: RepositoryRef;
      /** A pull request's head ref of the repository, fetched into {@link START_REF}. */
      readonly startRef?: string;
    }
  | { readonly kind: 'sandbox'; readonly sandboxId: string }
  | { readonly kind: 'empty' };

/**
 * The broker's git across the sandbox boundary, through each sandbox's {@link HostMirror}: a new
 * workdir is cloned from its mirror; a sandbox's commits come back as bundles that git inside the
 * sandbox writes; pushes leave from the mirror to the thread's repository as the caller names it
 * (the record), never to a remote the workdir names. No host process reads the workdir's `.git`.
 */
export class SandboxMirrors {
  /** Aborted when the broker shuts down: a clone, fetch or push still running is killed. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly rootDir: string,
    private readonly runner: OneShotRunner,
    private readonly github: GitHubGit,
  ) {}

  /**
   * Kills the clones, fetches and pushes still running, each with the processes its git started
   * (a setup fails with the broker's refusal, releasing the thread's lock while the bus is still
   * open; a push fails the same way, its caller told to ask again); one asked for afterwards is
   * refused. A killed fetch or clone leaves a setup that failed (its sandbox is deleted); a killed
   * push leaves the mirror's branch where it was, so the push asked again is leased as before.
   */
  stop(): void {
    this.stopping.abort(brokerStopping("the repository's clone, fetch or push"));
  }

  /** A sandbox's mirror (beside its workspace, out of its sight). */
  of(sandboxId: string): HostMirror {
    return new HostMirror(join(this.rootDir, sandboxId, 'mirror.git'));
  }

  /** Makes a new sandbox's mirror from `source`. */
  async build(sandboxId: string, source: MirrorSource): Promise<HostMirror> {
    const path = this.of(sandboxId).path;
    switch (source.kind) {
      case 'empty':
        return HostMirror.empty(path);
      case 'sandbox':
        return this.startedFrom(sandboxId, source.sandboxId);
      case 'repository': {
        const mirror = await this.cloned(path, source.repository);
        if (source.startRef) await this.fetchStart(mirror, source.repository, source.startRef);
        return mirror;
      }
    }
  }

  /** The URL the thread's repository is cloned from and pushed to; null when it has none. */
  remoteUrl(repository: RepositoryRef | undefined): string | null {
    if (!repository) return null;
    if (this.github.hosting.hosts(repository)) return this.github.hosting.cloneUrl(repository);
    return repository.cloneUrl ?? null;
  }

  /**
   * Brings the sandbox's `branch` into its mirror and pushes it to the thread's repository;
   * `pushed: false` when the thread has no remote to push to. GitHub refusing the App's push of a
   * workflow change fails as `FORBIDDEN` (`workflow_permission`, see `workflow-refusal.ts`).
   */
  async push(
    sandboxId: string,
    branch: string,
    repository: RepositoryRef | undefined,
  ): Promise<{ pushed: boolean; origin: string | null; commit: string | null }> {
    const url = this.remoteUrl(repository);
    if (url === null || !repository) return { pushed: false, origin: null, commit: null };
    let mirror = this.of(sandboxId);
    // A sandbox made before mirrors existed gets one now, from the repository on record.
    if (!(await mirror.exists())) mirror = await this.cloned(mirror.path, repository);
    const workRef = await mirror.workRef(branch);
    await this.importRef(sandboxId, mirror, `refs/heads/${branch}`, workRef);
    await refuseCiFromPullStart(mirror, workRef);
    const signal = this.stopping.signal;
    const send = (gitArgs: string[]) => mirror.push({ url, branch, gitArgs, signal });
    const fullName = `${repository.owner}/${repository.name}`;
    const commit = this.github.hosting.hosts(repository)
      ? await recognizeWorkflowRefusal(
          mirror,
          workRef,
          () => this.github.through(fullName, send),
          () => this.github.forget(fullName),
        )
      : await send([]);
    return { pushed: true, origin: url, commit };
  }

  private async cloned(path: string, repository: RepositoryRef): Promise<HostMirror> {
    if (this.github.hosting.hosts(repository)) {
      const url = this.github.hosting.cloneUrl(repository);
      const fullName = `${repository.owner}/${repository.name}`;
      return this.github.through(fullName, (proxy) =>
        HostMirror.clone(path, url, proxy, this.stopping.signal),
      );
    }
    if (repository.cloneUrl) {
      return HostMirror.clone(path, repository.cloneUrl, [], this.stopping.signal);
    }
    throw new AppError(
      'PRECONDITION_FAILED',
      `${repository.owner}/${repository.name} cannot be cloned: set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY so Caravel can read it from GitHub`,
      { details: { reason: 'repository_unavailable' } },
    );
  }

  /**
   * Fetches `ref` of the thread's repository into the mirror's {@link START_REF}, refusing one
   * whose own commits change the repository's CI definitions: pushed to a branch here, a fork's
   * workflow would run with this repository's secrets (`FORBIDDEN`, `start_ref_changes_ci`).
   */
  private async fetchStart(mirror: HostMirror, repository: RepositoryRef, ref: string) {
    const url = this.remoteUrl(repository);
    if (url === null) {
      throw new AppError('BAD_REQUEST', `${ref} cannot be fetched: the repository has no remote`);
    }
    const fetch = (gitArgs: string[]) => mirror.fetchStart(url, ref, gitArgs, this.stopping.signal);
    await (this.github.hosting.hosts(repository)
      ? this.github.through(`${repository.owner}/${repository.name}`, fetch)
      : fetch([]));
    const ci = (await mirror.pathsOnlyIn(START_REF)).filter(isCiDefinition);
    if (ci.length > 0) {
      throw new AppError(
        'FORBIDDEN',
        `${ref} changes ${ci.slice(0, 5).join(', ')}${ci.length > 5 ? ', …' : ''}: its CI definitions would run here with the repository's secrets`,
        { details: { reason: 'start_ref_changes_ci', ref, paths: ci.slice(0, 20) } },
      );
    }
  }

  /** A mirror holding another sandbox's HEAD at {@link START_REF} (commits only). */
  private async startedFrom(sandboxId: string, sourceId: string): Promise<HostMirror> {
    const source = this.of(sourceId);
    const path = this.of(sandboxId).path;
    const mirror = (await source.exists())
      ? await HostMirror.copy(path, source)
      : await HostMirror.init(path);
    await this.importRef(sourceId, mirror, 'HEAD', START_REF);
    return mirror;
  }

  /** Exports `ref` from a sandbox (a bundle git makes inside it) into `intoRef` of `mirror`. */
  private async importRef(
    sandboxId: string,
    mirror: HostMirror,
    ref: string,
    intoRef: string,
  ): Promise<string> {
    const scratch = await mkdtemp(join(this.rootDir, sandboxId, '.export-'));
    try {
      const known = await mirror.knownCommits();
      const exported = await exportRef(this.runner, sandboxId, ref, known, scratch);
      return await mirror.import(exported, ref, intoRef);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}
