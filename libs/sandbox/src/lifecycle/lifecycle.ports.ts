import type { RetirementReason } from '@caravel/db';
import type { Sandbox } from '../sandbox.types.js';

/** A thread's binding to a sandbox, as the lifecycle sees it (stored by the broker). */
export interface SandboxBindingRecord {
  /** The binding's own id (a UUID). */
  readonly id: string;
  readonly threadId: string;
  /** The provider that holds the sandbox. */
  readonly provider: string;
  /** The provider's id of the sandbox. */
  readonly externalId: string;
  readonly lastUsedAt?: Date;
}

/** Why a sandbox stopped being its thread's: one of the set the broker's store keeps. */
export type SandboxRetirementReason = RetirementReason;

/** How a sandbox leaves its thread, and where its work went. */
export interface SandboxRetirement {
  readonly reason: SandboxRetirementReason;
  /** The sandbox still exists on its provider. */
  readonly kept: boolean;
  readonly snapshotPath?: string;
  readonly snapshotCommit?: string;
}

/**
 * Where thread -> sandbox bindings live (the database, in the broker). One binding per thread:
 * `bind` never replaces an existing one, which is what makes two racing claimants end up with one
 * sandbox.
 */
export interface SandboxBindingStore {
  get(threadId: string): Promise<SandboxBindingRecord | null>;
  /** Binds unless the thread has a binding already; then that one comes back, `bound: false`. */
  bind(binding: SandboxBindingRecord): Promise<{ binding: SandboxBindingRecord; bound: boolean }>;
  /** Retires `bindingId` and binds `next` atomically; false when `bindingId` is no longer bound. */
  replace(
    bindingId: string,
    retirement: SandboxRetirement,
    next: SandboxBindingRecord,
  ): Promise<boolean>;
  /** Retires `bindingId`; false when it is no longer bound. */
  retire(bindingId: string, retirement: SandboxRetirement): Promise<boolean>;
  /** Records use of the thread's sandbox (the idle clock restarts). */
  touch(threadId: string): Promise<void>;
  /** Bindings unused since `before`, least recently used first. */
  listIdle(before: Date, limit: number): Promise<SandboxBindingRecord[]>;
}

/**
 * Serializes lifecycle decisions per thread across every broker replica (a bus lease in the
 * broker). `run` waits for the thread's lock, runs `work` holding it, and releases it.
 */
export interface ThreadLock {
  run<T>(threadId: string, work: () => Promise<T>): Promise<T>;
}

/** Fills a freshly created sandbox (clone, branch); the sandbox is bound only once it resolved. */
export type SandboxSetup = (sandbox: Sandbox) => Promise<void>;

/** How a thread got its sandbox on this call. */
export type AcquireOutcome = 'reused' | 'reconnected' | 'created' | 'replaced';

/** A thread's live sandbox and how it was obtained. */
export interface AcquiredSandbox {
  readonly sandbox: Sandbox;
  readonly binding: SandboxBindingRecord;
  readonly outcome: AcquireOutcome;
}

export interface AcquireOptions {
  /** Runs on a newly created sandbox before it is bound (clone, branch). */
  readonly setup: SandboxSetup;
  /**
   * Replace a bound sandbox that cannot be reached instead of failing. Only for threads whose
   * sandbox holds nothing that is not re-derived every run (the reviewer's checkout).
   */
  readonly allowReplacement?: boolean;
}
