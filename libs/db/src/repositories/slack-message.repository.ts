import { sql } from 'kysely';
import { timeOr, type Executor } from './executor.js';
import { GroupCommit } from './group-commit.js';

/** One Slack message's place: the workspace, the channel and its `ts`. */
export interface SlackMessageKey {
  team: string;
  channel: string;
  ts: string;
}

type NewSlackMessage = SlackMessageKey & { threadId: string; at?: Date };

/** Options of {@link SlackMessageRepository}. */
export interface SlackMessageRepositoryOptions {
  /**
   * True where the database runs its statements on this thread (PGlite): the look-ups and
   * records of one event-loop turn then go together (see `DeliveryRepositoryOptions`).
   */
  statementsOnThisThread?: boolean;
}

const placeOf = (message: SlackMessageKey): string =>
  `${message.team}\n${message.channel}\n${message.ts}`;

/**
 * Which thread each Slack message started or continued (`slack_messages`). A message keeps the
 * thread it was first recorded with; an edit or a move maps its new place to the same thread; a
 * deleted message is marked, never removed, so its thread's later replies still find the thread.
 *
 * Look-ups and records on the repository's own database are group-committed, as the deliveries'
 * claims are: those of concurrent requests go as one statement.
 */
export class SlackMessageRepository {
  private readonly lookups: GroupCommit<SlackMessageKey, string | null>;
  private readonly records: GroupCommit<NewSlackMessage, string>;

  constructor(
    private readonly db: Executor,
    options: SlackMessageRepositoryOptions = {},
  ) {
    const gatherForOneTurn = options.statementsOnThisThread ?? false;
    this.lookups = new GroupCommit((batch) => this.threadsOf(batch), { gatherForOneTurn });
    this.records = new GroupCommit((batch) => this.recordAll(batch, this.db), {
      gatherForOneTurn,
    });
  }

  /** Maps the message to `threadId` unless it is mapped already; the thread it maps to. */
  async record(message: NewSlackMessage, executor: Executor = this.db): Promise<string> {
    if (executor === this.db) return this.records.submit(message);
    const [threadId] = await this.recordAll([message], executor);
    return threadId!;
  }

  /** The thread the message belongs to (deleted or not); null when it was never recorded. */
  async threadOf(message: SlackMessageKey, executor: Executor = this.db): Promise<string | null> {
    if (executor === this.db) return this.lookups.submit(message);
    const [threadId] = await this.threadsOf([message], executor);
    return threadId ?? null;
  }

  /**
   * One insert for the messages; a message already mapped (or earlier in the batch) is looked
   * up, so each gets the thread it maps to.
   */
  private async recordAll(
    messages: readonly NewSlackMessage[],
    executor: Executor,
  ): Promise<string[]> {
    const rows = await executor
      .insertInto('slack_messages')
      .values(
        messages.map((message) => ({
          team: message.team,
          channel: message.channel,
          ts: message.ts,
          thread_id: message.threadId,
          recorded_at: timeOr(message.at),
        })),
      )
      .onConflict((conflict) => conflict.columns(['team', 'channel', 'ts']).doNothing())
      .returning(['team', 'channel', 'ts', 'thread_id'])
      .execute();
    const inserted = new Map(rows.map((row) => [placeOf(row), row.thread_id]));
    const fresh = messages.map((message) => {
      const threadId = inserted.get(placeOf(message));
      inserted.delete(placeOf(message));
      return threadId;
    });
    const taken = messages.filter((_, index) => fresh[index] === undefined);
    const found = taken.length > 0 ? await this.threadsOf(taken, executor) : [];
    const stored = new Map(taken.map((message, index) => [placeOf(message), found[index]]));
    return messages.map(
      (message, index) => fresh[index] ?? stored.get(placeOf(message)) ?? message.threadId,
    );
  }

  /**
   * The places are joined as a `VALUES` list, one index look-up each. Not `(team, channel, ts)
   * IN (…)`: PostgreSQL factors the team and channel every place shares out of that list, and
   * without statistics on the table (a new one, or before autovacuum's first analyse) scans every
   * message of the channel by that prefix (20,000 rows read for 2 places, measured).
   */
  private async threadsOf(
    messages: readonly SlackMessageKey[],
    executor: Executor = this.db,
  ): Promise<(string | null)[]> {
    const places = sql.join(
      messages.map((message) => sql`(${message.team}, ${message.channel}, ${message.ts})`),
    );
    const { rows } = await sql<SlackMessageKey & { thread_id: string }>`
      select m.team, m.channel, m.ts, m.thread_id
      from (values ${places}) as place (team, channel, ts)
      join slack_messages as m
        on m.team = place.team and m.channel = place.channel and m.ts = place.ts`.execute(executor);
    const found = new Map(rows.map((row) => [placeOf(row), row.thread_id]));
    return messages.map((message) => found.get(placeOf(message)) ?? null);
  }

  /**
   * A message that moved or was edited into a new place: the new place maps to the old one's
   * thread. Null (nothing written) when the old place was never recorded.
   */
  async follow(
    from: SlackMessageKey,
    to: SlackMessageKey,
    executor: Executor = this.db,
  ): Promise<string | null> {
    const threadId = await this.threadOf(from, executor);
    if (threadId === null) return null;
    await executor
      .insertInto('slack_messages')
      .values({ team: to.team, channel: to.channel, ts: to.ts, thread_id: threadId })
      .onConflict((conflict) =>
        conflict.columns(['team', 'channel', 'ts']).doUpdateSet({ thread_id: threadId }),
      )
      .execute();
    return threadId;
  }

  /** Marks a deleted message; the thread it maps to, or null when it was never recorded. */
  async markDeleted(
    message: SlackMessageKey & { at?: Date },
    executor: Executor = this.db,
  ): Promise<string | null> {
    const row = await executor
      .updateTable('slack_messages')
      .set({ deleted_at: timeOr(message.at) })
      .where('team', '=', message.team)
      .where('channel', '=', message.channel)
      .where('ts', '=', message.ts)
      .returning('thread_id')
      .executeTakeFirst();
    return row?.thread_id ?? null;
  }
}
