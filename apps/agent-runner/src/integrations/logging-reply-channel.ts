import { CARAVEL_NAMESPACE, uuidV5 } from '@caravel/contracts';
import type { ReplyChannel } from '@caravel/tools';
import { Logger } from '@nestjs/common';

const log = new Logger('RunReply');

/** Replies of a thread with nowhere to answer (synthetic triggers, an unconfigured source). */
export function loggingReplyChannel(threadId: string): ReplyChannel {
  return {
    reply: (text) => {
      log.log(`reply on thread ${threadId}: ${text.slice(0, 200)}`);
      return Promise.resolve({
        messageId: uuidV5(`reply:${threadId}:${text}`, CARAVEL_NAMESPACE),
      });
    },
  };
}
