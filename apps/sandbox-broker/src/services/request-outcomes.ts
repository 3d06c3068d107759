/** How long a finished request's outcome is kept for a retry of it. */
const KEEP_MS = 15 * 60_000;
/** The most outcomes kept at once (the oldest go first). */
const MAX_KEPT = 10_000;

interface Kept {
  readonly outcome: Promise<unknown>;
  settledAt?: number;
}

/**
 * The outcome of each request that changes something, by its `requestId`: a retry of a request
 * (its caller got no answer in time) gets the first attempt's outcome — awaited while that work
 * still runs — instead of doing the work again. Kept in memory for 15 minutes: a broker that
 * restarted meanwhile does the work again, and the caller is told its outcome was unknown only if
 * no attempt got an answer at all.
 */
export class RequestOutcomes {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `work` once per `requestId` (every time when there is none). */
  once<T>(requestId: string | undefined, work: () => Promise<T>): Promise<T> {
    if (requestId === undefined) return work();
    this.forgetOld();
    const known = this.kept.get(requestId);
    if (known) return known.outcome as Promise<T>;
    const entry: Kept = { outcome: work() };
    const settle = () => {
      entry.settledAt = this.now();
    };
    entry.outcome.then(settle, settle);
    this.kept.set(requestId, entry);
    return entry.outcome as Promise<T>;
  }

  /** How many outcomes are kept (for tests and metrics). */
  get size(): number {
    return this.kept.size;
  }

  /** Drops outcomes settled more than 15 minutes ago, and the oldest beyond the cap. */
  private forgetOld(): void {
    const before = this.now() - KEEP_MS;
    for (const [id, entry] of this.kept) {
      const expired = entry.settledAt !== undefined && entry.settledAt <= before;
      if (expired || this.kept.size > MAX_KEPT) this.kept.delete(id);
    }
  }
}
