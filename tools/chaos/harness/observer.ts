import { STREAMS, StartRunV1, type Envelope } from '@caravel/contracts';
import { connectJetStreamBus, silentLogger, type JetStreamBus } from '@caravel/messaging';
import pg from 'pg';
import { eventually } from '../../../e2e/support/walking-skeleton.js';

/** A run as the chaos suite reads it from the database. */
export interface RunRow {
  id: string;
  threadId: string;
  status: string;
  exitStatus: string | null;
}

const ENDED = new Set(['completed', 'failed', 'interrupted', 'merged']);

/**
 * The chaos suite's own view of what the platform did: straight to PostgreSQL (never through the
 * proxy the scenarios cut) and a bus client of its own on the platform's namespace.
 */
export class Observer {
  private constructor(
    private readonly pool: pg.Pool,
    readonly bus: JetStreamBus,
  ) {}

  static async open(databaseUrl: string, natsUrl: string, namespace: string): Promise<Observer> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    const bus = await connectJetStreamBus({
      url: natsUrl,
      name: `chaos-observer-${namespace}`,
      namespace,
      logger: silentLogger,
    });
    return new Observer(pool, bus);
  }

  async runsOf(threadIds: readonly string[]): Promise<RunRow[]> {
    if (threadIds.length === 0) return [];
    const { rows } = await this.pool.query<RunRow>(
      `SELECT id, thread_id AS "threadId", status, exit_status AS "exitStatus"
         FROM runs WHERE thread_id = ANY($1::uuid[]) ORDER BY created_at`,
      [threadIds],
    );
    return rows;
  }

  /** Runs per thread, once every thread has one or `timeoutMs` passed (then as they are). */
  async awaitRuns(threadIds: readonly string[], timeoutMs: number): Promise<Map<string, RunRow[]>> {
    const wanted = new Set(threadIds);
    const group = (runs: RunRow[]) => {
      const byThread = new Map<string, RunRow[]>();
      for (const run of runs)
        byThread.set(run.threadId, [...(byThread.get(run.threadId) ?? []), run]);
      return byThread;
    };
    const complete = async () => {
      const byThread = group(await this.runsOf([...wanted]));
      return [...wanted].every((t) => byThread.has(t)) ? byThread : undefined;
    };
    return eventually(complete, timeoutMs).catch(async () => group(await this.runsOf([...wanted])));
  }

  /** Waits until every run of `threadIds` has ended; resolves with them as they are then. */
  async awaitEnded(threadIds: readonly string[], timeoutMs: number): Promise<RunRow[]> {
    const ended = async () => {
      const runs = await this.runsOf(threadIds);
      const threads = new Set(runs.map((r) => r.threadId));
      return threads.size === threadIds.length && runs.every((r) => ENDED.has(r.status))
        ? runs
        : undefined;
    };
    return eventually(ended, timeoutMs).catch(() => this.runsOf(threadIds));
  }

  /** How many start commands each run got (the COMMANDS stream, read back in full). */
  async startCommands(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for await (const stored of this.bus.replay(STREAMS.COMMANDS)) {
      if (stored.envelope.type !== StartRunV1.type) continue;
      const { runId } = StartRunV1.parse(stored.envelope).data;
      counts.set(runId, (counts.get(runId) ?? 0) + 1);
    }
    return counts;
  }

  /** Every event of a thread, in order, as stored in the EVENTS stream. */
  async events(threadId: string): Promise<Envelope[]> {
    const events: Envelope[] = [];
    for await (const stored of this.bus.replay(STREAMS.EVENTS, { threadId })) {
      events.push(stored.envelope);
    }
    return events;
  }

  /** How many triggers the TRIGGERS stream holds for a thread. */
  async triggersOf(threadId: string): Promise<number> {
    let count = 0;
    for await (const _ of this.bus.replay(STREAMS.TRIGGERS, { threadId })) count += 1;
    return count;
  }

  /**
   * Where a request that never became a run got to: its deliveries rows, its triggers in the
   * stream, the dead letters of its thread.
   */
  async trail(threadId: string): Promise<string> {
    const deliveries = await this.query<{ settled: boolean }>(
      'SELECT settled_at IS NOT NULL AS settled FROM deliveries WHERE thread_id = $1',
      [threadId],
    );
    const triggers = await this.triggersOf(threadId);
    const letters = (await this.bus.deadLetters()).filter((l) => l.subject.includes(threadId));
    return [
      `deliveries ${deliveries.length} (settled ${deliveries.filter((d) => d.settled).length})`,
      `triggers in the stream ${triggers}`,
      `dead letters ${letters.length}${letters.map((l) => ` [${l.consumer}: ${l.reason}]`).join('')}`,
    ].join(', ');
  }

  query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    return this.pool.query<R>(text, values).then((r) => r.rows);
  }

  async close(): Promise<void> {
    await this.bus.close();
    await this.pool.end();
  }
}
