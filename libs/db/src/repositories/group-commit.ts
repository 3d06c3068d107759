/** The most items one statement carries (64 is the ingress bench's connection count). */
export const GROUP_COMMIT_MAX_BATCH = 64;

/** Options of {@link GroupCommit}. */
export interface GroupCommitOptions {
  /** The most items one statement carries (default {@link GROUP_COMMIT_MAX_BATCH}). */
  maxBatch?: number;
  /**
   * When nothing is in flight, let the event loop finish its turn before the first call goes,
   * so calls made in that turn (requests read from other sockets) go with it. For a database
   * whose statements run on this thread (PGlite): a statement there is done before the loop
   * reads the next request, so no call would ever find another in flight. Default false: the
   * first call goes at once.
   */
  gatherForOneTurn?: boolean;
  /**
   * When nothing is in flight, the first call waits this long so the calls of the next
   * milliseconds go with it: for work no request waits on (a settle after the answer), where
   * fewer statements matter and a few milliseconds do not. Default 0 (no timer).
   */
  gatherForMs?: number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent calls go to the database together, as one statement. The first call
 * goes at once; while a statement is in flight, later calls queue and go together as the next
 * one (at most `maxBatch` items). Alone, a call waits for nothing unless asked to gather (see
 * `gatherForOneTurn` and `gatherForMs`).
 *
 * `run` takes a batch and answers one result per item, in order. When it fails for a batch of
 * several, each item is run again alone, so an item the database refuses fails only its own
 * caller. So `run` must be safe to run again after it failed: one statement (which, failed,
 * changed nothing), or statements whose second run answers the same.
 */
export class GroupCommit<I, O> {
  private readonly queue: Waiting<I, O>[] = [];
  private draining = false;
  private readonly maxBatch: number;
  private readonly gatherForOneTurn: boolean;
  private readonly gatherForMs: number;

  constructor(
    private readonly run: (items: readonly I[]) => Promise<readonly O[]>,
    options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? GROUP_COMMIT_MAX_BATCH;
    this.gatherForOneTurn = options.gatherForOneTurn ?? false;
    this.gatherForMs = options.gatherForMs ?? 0;
  }

  /** Resolves with the item's result once the statement that carried it is done. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      if (this.gatherForMs > 0) setTimeout(() => void this.drain(), this.gatherForMs);
      else if (this.gatherForOneTurn) setImmediate(() => void this.drain());
      else void this.drain();
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // Alone (as most calls are, below the peak) it is taken without a batch array.
        await (this.queue.length === 1
          ? this.runAlone(this.queue.pop()!)
          : this.runTogether(this.queue.splice(0, this.maxBatch)));
      }
    } finally {
      this.draining = false;
    }
  }

  private async runTogether(batch: Waiting<I, O>[]): Promise<void> {
    let results: readonly O[];
    try {
      results = await this.run(batch.map((waiting) => waiting.item));
    } catch {
      await Promise.all(batch.map((waiting) => this.runAlone(waiting)));
      return;
    }
    batch.forEach((waiting, index) => waiting.resolve(results[index]!));
  }

  private async runAlone(waiting: Waiting<I, O>): Promise<void> {
    try {
      const [result] = await this.run([waiting.item]);
      waiting.resolve(result!);
    } catch (error) {
      waiting.reject(error);
    }
  }
}
