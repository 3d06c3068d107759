import { Injectable } from '@nestjs/common';

type Listener = () => void;

/**
 * Wakes the live streams of a thread as soon as this process indexes one of its events, so the
 * page shows a step within moments. Streams also poll, for events another replica indexed.
 */
@Injectable()
export class RunEventNotifier {
  private readonly listeners = new Map<string, Set<Listener>>();

  notify(threadId: string): void {
    for (const listener of this.listeners.get(threadId) ?? []) listener();
  }

  /** Calls `listener` on each event of the thread until the returned function is called. */
  subscribe(threadId: string, listener: Listener): () => void {
    const set = this.listeners.get(threadId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(threadId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(threadId);
    };
  }
}
