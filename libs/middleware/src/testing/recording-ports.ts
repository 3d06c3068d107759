import type {
  AgentsFile,
  AgentsFileFinder,
  Clock,
  MessageQueue,
  MiddlewareEvent,
  MiddlewareEventSink,
  QueuedMessage,
  StepLimitNotice,
  StepLimitNotifier,
} from '../ports.js';

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
