import { AppError } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import { sandboxErrorReason } from '../sandbox.errors.js';
import type { Sandbox, SandboxLogger, SandboxProvider, SandboxSpec } from '../sandbox.types.js';
import { sandboxUnreachable, threadHasNoSandbox } from './lifecycle.errors.js';
import type {
  AcquiredSandbox,
  AcquireOptions,
  SandboxBindingRecord,
  SandboxBindingStore,
  SandboxRetirement,
  SandboxSetup,
  ThreadLock,
} from './lifecycle.ports.js';

/** Use of a sandbox is recorded at most this often by plain operations (acquire always does). */
const TOUCH_EVERY_MS = 60_000;

export interface SandboxLifecycleOptions {
  readonly provider: SandboxProvider;
  readonly bindings: SandboxBindingStore;
  readonly lock: ThreadLock;
  /** What every new sandbox is created with (its environment, limits); never secrets. */
  readonly spec?: Omit<SandboxSpec, 'id'>;
  readonly logger?: SandboxLogger;
  readonly now?: () => Date;
}

/** What the idle reclaimer saves of a sandbox before deleting it (null: nothing to save). */
export type WorkSnapshotter = (
  binding: SandboxBindingRecord,
) => Promise<{ path: string; commit: string } | null>;

/**
 * The rules for a thread's sandbox (the seeds' "tricky part"): a cached, alive sandbox is reused;
 * a bound one that is not cached is reconnected; only a thread with none gets a new one, bound
 * after its setup succeeded. A bound sandbox that cannot be reached, or no longer exists, is never
 * replaced silently unless the caller may re-derive it (the reviewer): it may hold work, a missing
 * one may only be unmounted, and a fresh one would let the agent go on as if its earlier work were
 * there. The caller tells the user, who may ask for a recreate. Decisions for one thread are serialized by the {@link ThreadLock}, and the one-binding-
 * per-thread store settles any race the lock did not prevent: the loser discards its sandbox.
 */
export class SandboxLifecycle {
  private readonly cache = new Map<string, Sandbox>();
  private readonly active = new Map<string, number>();
  private readonly touched = new Map<string, number>();
  private readonly now: () => Date;

  constructor(private readonly options: SandboxLifecycleOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The thread's sandbox: reused, reconnected, created, or (only if allowed) replaced. */
  acquire(threadId: string, options: AcquireOptions): Promise<AcquiredSandbox> {
    return this.options.lock.run(threadId, () => this.acquireLocked(threadId, options));
  }

  /** A new sandbox for the thread; the old one is retired but kept (for recovery). */
  recreate(threadId: string, setup: SandboxSetup): Promise<AcquiredSandbox> {
    return this.options.lock.run(threadId, async () => {
      const binding = await this.options.bindings.get(threadId);
      if (!binding) return this.createAndBind(threadId, setup);
      await this.forget(threadId, 'recreated');
      return this.replace(threadId, binding, { reason: 'recreated', kept: true }, setup);
    });
  }

  /**
   * Runs `work` on the thread's bound sandbox (connecting to it when not cached, never creating
   * one). The idle reclaimer leaves a sandbox alone while work runs on it.
   */
  async use<T>(threadId: string, work: (sandbox: Sandbox) => Promise<T>): Promise<T> {
    this.active.set(threadId, (this.active.get(threadId) ?? 0) + 1);
    try {
      const sandbox = this.cache.get(threadId) ?? (await this.attach(threadId));
      await this.touchNow(threadId, false);
      return await work(sandbox);
    } finally {
      const left = (this.active.get(threadId) ?? 1) - 1;
      if (left > 0) this.active.set(threadId, left);
      else this.active.delete(threadId);
    }
  }

  /** The cached sandbox of a thread, if this process has one open. */
  cached(threadId: string): Sandbox | undefined {
    return this.cache.get(threadId);
  }

  /** Ends the thread's session here (the sandbox and its work stay); false when none was open. */
  async release(threadId: string): Promise<boolean> {
    return this.forget(threadId, 'released');
  }

  /** Ends the session of a thread whose caller vanished mid-command (see the broker). */
  async abandon(threadId: string, sandbox: Sandbox): Promise<void> {
    if (this.cache.get(threadId) === sandbox) this.cache.delete(threadId);
    await sandbox.close().catch(() => undefined);
  }

  /**
   * Deletes an idle thread's sandbox, after `snapshot` saved any work it held, and records the
   * retirement (with the snapshot) before the deletion. False when it was in use or used since.
   */
  async reclaim(
    idle: SandboxBindingRecord,
    before: Date,
    snapshot: WorkSnapshotter,
  ): Promise<boolean> {
    return this.options.lock.run(idle.threadId, async () => {
      const binding = await this.options.bindings.get(idle.threadId);
      if (!binding || binding.id !== idle.id || this.active.has(idle.threadId)) return false;
      if (binding.lastUsedAt && binding.lastUsedAt >= before) return false;
      await this.forget(idle.threadId, 'reclaimed');
      const saved = await snapshot(binding);
      return this.retireDeleting(binding, {
        reason: 'reclaimed',
        kept: false,
        ...(saved ? { snapshotPath: saved.path, snapshotCommit: saved.commit } : {}),
      });
    });
  }

  /**
   * Deletes a thread's sandbox now, with no snapshot, and retires its binding (`reclaimed`, not
   * kept): for work recorded elsewhere, like a retry-and-select attempt's (its trajectory and
   * patch). False when the thread has no sandbox.
   */
  async dispose(threadId: string): Promise<boolean> {
    return this.options.lock.run(threadId, async () => {
      const binding = await this.options.bindings.get(threadId);
      if (!binding) return false;
      await this.forget(threadId, 'discarded');
      return this.retireDeleting(binding, { reason: 'reclaimed', kept: false });
    });
  }

  /** Closes every session this process holds (shutdown); the sandboxes stay. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.cache.keys()].map((threadId) => this.forget(threadId, 'shutdown')));
  }

  private async acquireLocked(threadId: string, options: AcquireOptions): Promise<AcquiredSandbox> {
    const binding = await this.options.bindings.get(threadId);
    if (!binding) return this.createAndBind(threadId, options.setup);
    const cached = this.cache.get(threadId);
    if (cached && cached.id === binding.externalId && (await cached.ping())) {
      await this.touchNow(threadId, true);
      return { sandbox: cached, binding, outcome: 'reused' };
    }
    await this.forget(threadId, 'stale or not answering');
    try {
      const sandbox = await this.connect(binding);
      return { sandbox, binding, outcome: 'reconnected' };
    } catch (error) {
      const gone = this.isGone(binding, error);
      if (!options.allowReplacement) {
        throw sandboxUnreachable(threadId, binding.externalId, error);
      }
      this.options.logger?.warn(`replacing the sandbox of thread ${threadId}`, {
        sandboxId: binding.externalId,
        reason: gone ? 'gone' : 'unreachable',
      });
      const retirement: SandboxRetirement = gone
        ? { reason: 'gone', kept: false }
        : { reason: 'replaced', kept: true };
      return this.replace(threadId, binding, retirement, options.setup);
    }
  }

  private attach(threadId: string): Promise<Sandbox> {
    return this.options.lock.run(threadId, async () => {
      const open = this.cache.get(threadId);
      if (open) return open;
      const binding = await this.options.bindings.get(threadId);
      if (!binding) throw threadHasNoSandbox(threadId);
      return this.connect(binding).catch((error: unknown) => {
        throw sandboxUnreachable(threadId, binding.externalId, error);
      });
    });
  }

  private async connect(binding: SandboxBindingRecord): Promise<Sandbox> {
    const { provider } = this.options;
    if (binding.provider !== provider.name) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `it is a ${binding.provider} sandbox and this broker runs ${provider.name}`,
      );
    }
    const sandbox = await provider.connect(binding.externalId);
    this.cache.set(binding.threadId, sandbox);
    await this.touchNow(binding.threadId, true);
    return sandbox;
  }

  private isGone(binding: SandboxBindingRecord, error: unknown): boolean {
    return (
      binding.provider === this.options.provider.name &&
      sandboxErrorReason(error) === 'sandbox_not_found'
    );
  }

  private async createAndBind(threadId: string, setup: SandboxSetup): Promise<AcquiredSandbox> {
    const sandbox = await this.createPrepared(threadId, setup);
    const { binding, bound } = await this.options.bindings.bind(this.bindingFor(threadId, sandbox));
    if (bound) {
      this.cache.set(threadId, sandbox);
      return { sandbox, binding, outcome: 'created' };
    }
    // Another claimant bound its sandbox first: the thread has exactly one, and it is theirs.
    await this.discard(sandbox);
    const winner = await this.connect(binding).catch((error: unknown) => {
      throw sandboxUnreachable(threadId, binding.externalId, error);
    });
    return { sandbox: winner, binding, outcome: 'reconnected' };
  }

  private async replace(
    threadId: string,
    old: SandboxBindingRecord,
    retirement: SandboxRetirement,
    setup: SandboxSetup,
  ): Promise<AcquiredSandbox> {
    const sandbox = await this.createPrepared(threadId, setup);
    const binding = this.bindingFor(threadId, sandbox);
    if (!(await this.options.bindings.replace(old.id, retirement, binding))) {
      await this.discard(sandbox);
      throw new AppError('CONFLICT', `the sandbox of thread ${threadId} changed meanwhile`, {
        retryable: true,
      });
    }
    this.cache.set(threadId, sandbox);
    return { sandbox, binding, outcome: 'replaced' };
  }

  /** A new sandbox with its setup done; deleted again when the setup fails. */
  private async createPrepared(threadId: string, setup: SandboxSetup): Promise<Sandbox> {
    const sandbox = await this.createFresh(threadId);
    try {
      await setup(sandbox);
      return sandbox;
    } catch (error) {
      await this.discard(sandbox);
      throw error;
    }
  }

  /** The thread's first sandbox is named after it; later ones (or a racing claimant's) are not. */
  private async createFresh(threadId: string): Promise<Sandbox> {
    const { provider, spec } = this.options;
    try {
      return await provider.create({ ...spec, id: threadId });
    } catch (error) {
      if (sandboxErrorReason(error) !== 'sandbox_exists') throw error;
      return provider.create({ ...spec, id: `sbx-${randomUUID()}` });
    }
  }

  private bindingFor(threadId: string, sandbox: Sandbox): SandboxBindingRecord {
    return {
      id: randomUUID(),
      threadId,
      provider: this.options.provider.name,
      externalId: sandbox.id,
    };
  }

  private async discard(sandbox: Sandbox): Promise<void> {
    await sandbox.close().catch(() => undefined);
    await this.options.provider.delete(sandbox.id).catch(() => undefined);
  }

  /** Retires the binding, then deletes its sandbox (only if this call retired it). */
  private async retireDeleting(
    binding: SandboxBindingRecord,
    retirement: SandboxRetirement,
  ): Promise<boolean> {
    const retired = await this.options.bindings.retire(binding.id, retirement);
    if (retired) await this.options.provider.delete(binding.externalId).catch(() => undefined);
    return retired;
  }

  /**
   * Closes the thread's session here. Work running on it ends with it (a command is killed), which
   * is logged with `why`: a session closed under a command is otherwise a kill from nowhere.
   */
  private async forget(threadId: string, why: string): Promise<boolean> {
    const open = this.cache.get(threadId);
    this.cache.delete(threadId);
    const inUse = this.active.get(threadId) ?? 0;
    if (open && inUse > 0) {
      this.options.logger?.warn(
        `thread ${threadId}: its sandbox session is closed (${why}) while ${inUse} operation(s) run on it; a running command is killed`,
        { threadId, sandboxId: open.id, why, inUse },
      );
    }
    await open?.close().catch(() => undefined);
    return open !== undefined;
  }

  private async touchNow(threadId: string, always: boolean): Promise<void> {
    const now = this.now().getTime();
    if (!always && now - (this.touched.get(threadId) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(threadId, now);
    await this.options.bindings.touch(threadId);
  }
}
