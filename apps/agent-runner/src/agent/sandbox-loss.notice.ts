import { RunNoticeRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { sandboxUnreachableNotice } from '@caravel/middleware/errors';
import type { ReplyChannel } from '@caravel/tools';
import { Inject, Injectable, Logger } from '@nestjs/common';

/**
 * Tells the source channel that a run stopped because its thread's sandbox is gone or cannot be
 * reached, and records that message as the run's failure notice: the user gets exactly one clear
 * message, and dispatch does not add its generic failure reply after it.
 */
@Injectable()
export class SandboxLossNotice {
  private readonly log = new Logger('SandboxLossNotice');

  constructor(@Inject(RunNoticeRepository) private readonly notices: RunNoticeRepository) {}

  /** The runner's own path (the sandbox could not be acquired): a failure to post is logged. */
  async tell(channel: ReplyChannel, runId: string, error: unknown): Promise<void> {
    await this.post(channel, runId, sandboxUnreachableNotice(error)).catch((failure: unknown) => {
      const code = isAppError(failure) ? failure.code : 'error';
      this.log.warn(`run ${runId}: could not tell the user (${code}): ${String(failure)}`);
    });
  }

  /** Posts `text` and records it as the run's failure notice; rejects when it was not posted. */
  async post(channel: ReplyChannel, runId: string, text: string): Promise<void> {
    await channel.reply(text);
    await this.notices.record(runId, 'failure');
  }
}
