import type {
  AgentsFile,
  AgentsFileFinder,
  Clock,
  MessageQueue,
  MiddlewareEvent,
  MiddlewareEventSink,
  ModelPricing,
  QueuedMessage,
  StepLimitNotice,
  StepLimitNotifier,
} from '../ports.js';
import type { MiddlewareStackOptions } from '../build-middleware-stack.js';

/** An event sink that keeps what it was given. */
export class RecordingEvents implements MiddlewareEventSink {
  readonly events: MiddlewareEvent[] = [];
  emit(event: MiddlewareEvent): void {
    this.events.push(event);
  }
}

/** A notifier that records notices, or fails when told to. */
export class RecordingNotifier implements StepLimitNotifier {
  readonly notices: StepLimitNotice[] = [];
  constructor(private readonly failWith?: Error) {}
  async notifyStepLimit(notice: StepLimitNotice): Promise<void> {
    this.notices.push(notice);
    if (this.failWith) throw this.failWith;
  }
}

/** A queue whose drains return scripted batches, one per call, then nothing. */
export class ScriptedQueue implements MessageQueue {
  readonly drainedFor: string[] = [];
  constructor(private readonly batches: QueuedMessage[][]) {}
  async drain(threadId: string): Promise<QueuedMessage[]> {
    this.drainedFor.push(threadId);
    return this.batches.shift() ?? [];
  }
}

/** Finds AGENTS.md files from an in-memory map of directory -> content. */
export class MapAgentsFinder implements AgentsFileFinder {
  readonly lookups: string[] = [];
  constructor(private readonly byDirectory: Record<string, string>) {}
  async findAgentsFiles(path: string): Promise<AgentsFile[]> {
    this.lookups.push(path);
    return Object.entries(this.byDirectory)
      .filter(([dir]) => path.startsWith(dir === '/' ? '/' : `${dir}/`))
      .map(([dir, content]) => ({ path: `${dir === '/' ? '' : dir}/AGENTS.md`, content }))
      .reverse();
  }
}

/** A clock whose timers fire only when the test says so. */
export class ManualClock implements Clock {
  private timers: { ms: number; callback: () => void; cancelled: boolean }[] = [];
  /** The time `nowMs` reports; tests move it with {@link advance}. */
  private now = 1_700_000_000_000;
  nowMs(): number {
    return this.now;
  }
  advance(ms: number): void {
    this.now += ms;
  }
  setTimer(ms: number, callback: () => void): () => void {
    const timer = { ms, callback, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }
  /** Timers still waiting to fire. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
  /** Fires every timer still waiting. */
  fireAll(): void {
    const due = this.timers.filter((t) => !t.cancelled);
    this.timers = [];
    for (const timer of due) timer.callback();
  }
}

/** Prices of a model that costs nothing (scripted). */
export const FREE_PRICING: ModelPricing = { estimateCallUsd: () => 0, costUsd: () => 0 };

/** Loop-discipline options with every limit off: the stack behaves as if they were absent. */
export function relaxedLoopOptions(): Pick<MiddlewareStackOptions, 'requery' | 'runLimits'> {
  return {
    requery: {
      validator: {
        blocklist: { prefixes: [], exact: [], unlessFlag: [], checkCompound: false },
        multilineCommands: [],
      },
    },
    runLimits: {
      limits: { maxCostUsd: 0, maxWallTimeMs: 0, maxInputTokens: 0 },
      execution: { maxTotalExecutionSeconds: 0, maxConsecutiveTimeouts: 0 },
      stuckThreshold: 0,
      pricing: FREE_PRICING,
      promptMessageId: 'no-prompt-id',
    },
  };
}
