/** What a readiness check answers over HTTP: `ok`, or `failed` (the reason goes to the log). */
export type CheckAnswer = 'ok' | 'failed';

/**
 * Runs the readiness probes and keeps their reasons off the wire. `/health/ready` is served on
 * every port, the public ingress one included, and a failure's message names internal hosts,
 * ports, paths and at times a connection string's user; the response says which check failed,
 * and the log says why: once when a check starts failing (or fails differently), and once when
 * it answers again, so a probe every few seconds during an outage does not flood it.
 */
export class ReadinessChecks<Name extends string> {
  private readonly lastFailure = new Map<Name, string>();

  constructor(private readonly log: (line: string) => void) {}

  async run(probes: Record<Name, () => Promise<void>>): Promise<Record<Name, CheckAnswer>> {
    const names = Object.keys(probes) as Name[];
    const answers = await Promise.all(names.map((name) => this.answer(name, probes[name])));
    return Object.fromEntries(names.map((name, i) => [name, answers[i]])) as Record<
      Name,
      CheckAnswer
    >;
  }

  private async answer(name: Name, probe: () => Promise<void>): Promise<CheckAnswer> {
    try {
      await probe();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (this.lastFailure.get(name) !== reason) this.log(`readiness: ${name} failed: ${reason}`);
      this.lastFailure.set(name, reason);
      return 'failed';
    }
    if (this.lastFailure.delete(name)) this.log(`readiness: ${name} answers again`);
    return 'ok';
  }
}
