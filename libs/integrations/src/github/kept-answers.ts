/**
 * GitHub's answers kept `ttlMs` per key, so a page that asks the same question fifty times asks
 * GitHub once. A failure is not kept: the next question asks again. Past `maxAnswers` the oldest
 * answer goes first.
 */
export class KeptAnswers<T> {
  private readonly answers = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly maxAnswers = 10_000,
  ) {}

  /** The answer kept under `key` while fresh, else what `ask` answers now (then kept). */
  async get(key: string, ask: () => Promise<T>): Promise<T> {
    const now = this.now();
    const kept = this.answers.get(key);
    if (kept && kept.until > now) return kept.value;
    const value = await ask();
    this.answers.delete(key);
    if (this.answers.size >= this.maxAnswers) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    this.answers.set(key, { value, until: now + this.ttlMs });
    return value;
  }
}
