import { timeOr, type Executor } from './executor.js';

/** One Slack message's place: the workspace, the channel and its `ts`. */
export interface SlackMessageKey {
  team: string;
  channel: string;
  ts: string;
}

/**
 * Which thread each Slack message started or continued (`slack_messages`). A message keeps the
 * thread it was first recorded with; an edit or a move maps its new place to the same thread; a
 * deleted message is marked, never removed, so its thread's later replies still find the thread.
 */
export class SlackMessageRepository {
  constructor(private readonly db: Executor) {}

  /** Maps the message to `threadId` unless it is mapped already; the thread it maps to. */
  async record(
    message: SlackMessageKey & { threadId: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<string> {
    await executor
      .insertInto('slack_messages')
      .values({
        team: message.team,
        channel: message.channel,
        ts: message.ts,
        thread_id: message.threadId,
        recorded_at: timeOr(message.at),
      })
      .onConflict((conflict) => conflict.columns(['team', 'channel', 'ts']).doNothing())
      .execute();
    return (await this.threadOf(message, executor)) ?? message.threadId;
  }

  /** The thread the message belongs to (deleted or not); null when it was never recorded. */
  async threadOf(message: SlackMessageKey, executor: Executor = this.db): Promise<string | null> {
    const row = await executor
      .selectFrom('slack_messages')
      .select('thread_id')
      .where('team', '=', message.team)
      .where('channel', '=', message.channel)
      .where('ts', '=', message.ts)
      .executeTakeFirst();
    return row?.thread_id ?? null;
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
