import type { SlackApi } from './slack-api.js';
import type { SlackThreadRef } from './slack-thread.js';

/**
 * The "is working…" line Slack shows under a thread while an assistant works, through
 * `assistant.threads.setStatus` (`channel_id`, `thread_ts`, `status`). Slack drops a status by
 * itself when the bot posts in the thread or after two minutes, so callers set it again before
 * each step; an empty status clears it. Structurally the agent middleware's `AssistantStatusPort`.
 */
export class SlackAssistantStatus {
  constructor(
    private readonly api: SlackApi,
    private readonly thread: Pick<SlackThreadRef, 'channel' | 'threadTs'>,
  ) {}

  /** Shows `status` under the thread until it is replaced or cleared. */
  async setStatus(status: string): Promise<void> {
    const { channel, threadTs } = this.thread;
    await this.api.call(`set the assistant status of ${channel}/${threadTs}`, (client) =>
      client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status }),
    );
  }

  /** Removes the status (Slack's convention: an empty one). */
  clearStatus(): Promise<void> {
    return this.setStatus('');
  }
}
