import type { SandboxLogger } from '../sandbox.types.js';
import type { SandboxBindingStore } from './lifecycle.ports.js';
import type { SandboxLifecycle, WorkSnapshotter } from './sandbox-lifecycle.js';

export interface IdleReclaimerOptions {
  readonly lifecycle: SandboxLifecycle;
  readonly bindings: SandboxBindingStore;
  /** A sandbox unused for this long is reclaimed. */
  readonly idleTtlMs: number;
  /** Saves a sandbox's unsaved work before it is deleted (see `snapshotWork`). */
  readonly snapshot: WorkSnapshotter;
  /** Sandboxes looked at per sweep (default 50). */
  readonly batchSize?: number;
  readonly now?: () => Date;
  readonly logger?: SandboxLogger;
}

/** What one sweep did. */
export interface SweepReport {
  /** Threads whose sandbox was deleted (after its work, if any, was snapshotted). */
  readonly reclaimed: string[];
  /** Threads whose sandbox stayed, with why (in use, used since, or a failed snapshot). */
  readonly kept: { threadId: string; reason: string }[];
}

/**
 * The TTL policy for idle sandboxes: every sweep, each sandbox unused for `idleTtlMs` is deleted,
 * but only after its uncommitted or unpushed work was saved where the deletion cannot reach it
 * (and recorded with the retirement). A sandbox whose work cannot be saved is left alone.
 */
export class IdleReclaimer {
  private readonly now: () => Date;

  constructor(private readonly options: IdleReclaimerOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async sweep(): Promise<SweepReport> {
    const before = new Date(this.now().getTime() - this.options.idleTtlMs);
    const idle = await this.options.bindings.listIdle(before, this.options.batchSize ?? 50);
    const report: SweepReport = { reclaimed: [], kept: [] };
    for (const binding of idle) {
      try {
        const done = await this.options.lifecycle.reclaim(binding, before, this.options.snapshot);
        if (done) report.reclaimed.push(binding.threadId);
        else report.kept.push({ threadId: binding.threadId, reason: 'in use or used since' });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.options.logger?.warn(`kept the idle sandbox of thread ${binding.threadId}`, {
          reason,
        });
        report.kept.push({ threadId: binding.threadId, reason });
      }
    }
    return report;
  }
}
