import type { ParkedEntry, ParkedThread, ParkedThreads } from './parked-threads.js';

/** What the rules need of the store (a compare-and-set record per thread). */
export type ParkedStore = Pick<ParkedThreads, 'get' | 'create' | 'update' | 'remove'>;

/** A parked thread's first message, taken by one replica for one attempt. */
export interface ParkedAttempt {
  threadId: string;
  sequence: number;
  /** This attempt's delivery count. */
  deliveryCount: number;
  /** Earlier deliveries that failed with an outage. */
  outages: number;
  /** True when the last allowed attempt was taken and never settled: give up without running. */
  exhausted: boolean;
}

/**
 * The rules of parking, as compare-and-set loops over {@link ParkedThreads}. A thread is parked
 * when its oldest message fails in its partition; from then on its later messages join the end
 * of the record (and are acked in the partition), and its first is retried until it succeeds or
 * is dead-lettered. When the last one is done the record is deleted, and the thread's next
 * message is handled in its partition again. So a thread keeps its order while the other
 * threads of its partition go on.
 */
export class ThreadParking {
  constructor(
    private readonly store: ParkedStore,
    private readonly holder: string,
    private readonly policy: { maxDeliver: number; ackWaitMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Called before a partition runs a message: when its thread is parked, the message joins the
   * end of the record (once) and `true` says the partition must not run it.
   */
  joinIfParked(threadId: string, sequence: number): Promise<boolean> {
    return joinParked(this.store, threadId, sequence);
  }

  /**
   * Parks a thread at a message that failed (or never settled) after `deliveries` attempts,
   * `outages` of them with an outage.
   */
  park(
    threadId: string,
    sequence: number,
    deliveries: number,
    dueAt: number,
    outages = 0,
  ): Promise<void> {
    return parkMessage(this.store, threadId, sequence, { deliveries, dueAt, outages });
  }

  /** When the entry's first message may be taken next (epoch ms). */
  readyAt(entry: ParkedEntry): number {
    return entry.value.holder === null ? entry.value.dueAt : entry.value.heldUntil;
  }

  /** Takes the first message for one attempt; null when another replica changed the record first. */
  async claim(entry: ParkedEntry): Promise<ParkedAttempt | null> {
    const { value } = entry;
    const sequence = value.sequences[0];
    if (sequence === undefined || this.readyAt(entry) > this.now()) return null;
    // A hold that ran out on the last allowed attempt is given up on, not run again. Outage
    // failures do not count; the attempt that ran out (counted in `deliveries`) does.
    const outages = value.outages ?? 0;
    const exhausted = value.holder !== null && value.deliveries - outages >= this.policy.maxDeliver;
    const deliveries = exhausted ? value.deliveries : value.deliveries + 1;
    const claimed = await this.store.update(entry, {
      ...value,
      deliveries,
      holder: this.holder,
      heldUntil: this.now() + this.policy.ackWaitMs,
    });
    if (!claimed) return null;
    return { threadId: entry.threadId, sequence, deliveryCount: deliveries, outages, exhausted };
  }

  /**
   * The first message is done with (handled, or dead-lettered): the next becomes due at once, or
   * the thread is released. A late success from a stale attempt still counts.
   */
  async finish(attempt: ParkedAttempt): Promise<void> {
    for (;;) {
      const entry = await this.store.get(attempt.threadId);
      if (!entry || entry.value.sequences[0] !== attempt.sequence) return;
      const rest = entry.value.sequences.slice(1);
      const done =
        rest.length === 0
          ? await this.store.remove(entry)
          : await this.store.update(entry, {
              sequences: rest,
              deliveries: 0,
              outages: 0,
              dueAt: this.now(),
              holder: null,
              heldUntil: 0,
            });
      if (done) return;
    }
  }

  /** The attempt failed (with an outage: `outage`): try the same message again after `delayMs`. */
  async retryLater(attempt: ParkedAttempt, delayMs: number, outage = false): Promise<void> {
    await this.whileHeld(attempt, (value) => ({
      ...value,
      outages: (value.outages ?? 0) + (outage ? 1 : 0),
      dueAt: this.now() + delayMs,
      holder: null,
      heldUntil: 0,
    }));
  }

  /** Pushes the attempt's deadline back (`working()`). */
  async extend(attempt: ParkedAttempt): Promise<void> {
    await this.whileHeld(attempt, (value) => ({
      ...value,
      heldUntil: this.now() + this.policy.ackWaitMs,
    }));
  }

  /** Applies `change` while this replica still holds this attempt; a stale attempt changes nothing. */
  private async whileHeld(
    attempt: ParkedAttempt,
    change: (value: ParkedThread) => ParkedThread,
  ): Promise<void> {
    for (;;) {
      const entry = await this.store.get(attempt.threadId);
      if (!entry) return;
      const { value } = entry;
      const held =
        value.sequences[0] === attempt.sequence &&
        value.holder === this.holder &&
        value.deliveries === attempt.deliveryCount;
      if (!held) return;
      if (await this.store.update(entry, change(value))) return;
    }
  }
}

/**
 * Parks a message under `key` (a thread, or a single message of a shared consumer), due at
 * `dueAt`. A record that appeared meanwhile holds earlier messages of the thread: this one joins
 * it behind them (once, however many times it is parked).
 */
export async function parkMessage(
  store: ParkedStore,
  key: string,
  sequence: number,
  start: { deliveries: number; dueAt: number; outages: number },
): Promise<void> {
  const value: ParkedThread = { sequences: [sequence], ...start, holder: null, heldUntil: 0 };
  for (;;) {
    if (await store.create(key, value)) return;
    if (await joinParked(store, key, sequence)) return;
  }
}

/** Appends `sequence` to the record under `key` (once); false when there is no record. */
async function joinParked(store: ParkedStore, key: string, sequence: number): Promise<boolean> {
  for (;;) {
    const entry = await store.get(key);
    if (!entry) return false;
    if (entry.value.sequences.includes(sequence)) return true;
    // Appended, never sorted in: the first is the one being retried, and an older sequence
    // arriving now is a redelivery of a message already handled (its ack was lost).
    const sequences = [...entry.value.sequences, sequence];
    if (await store.update(entry, { ...entry.value, sequences })) return true;
  }
}
