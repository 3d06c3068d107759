import { HumanMessage } from '@langchain/core/messages';
import { UNTRUSTED_TAG, withUserInstructions } from '@caravel/tools';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { describeError } from './error-inspection.js';
import { queuedMessageId, renderQueuedMessage } from './queued-message.js';
import type {
  MessageQueue,
  MiddlewareEventSink,
  QueuedMessage,
  UserInstructionsLookup,
} from './ports.js';

/** Parameters of {@link messageQueueMiddleware}. */
export interface MessageQueueOptions {
  threadId: string;
  queue: MessageQueue;
  /** Whether an author's words may be read as instructions (e.g. a member of the team). */
  isTrustedAuthor: (author: string) => boolean;
  events: MiddlewareEventSink;
  /** Each author's standing instructions, attached to their messages (default: none are). */
  userInstructions?: UserInstructionsLookup;
}

/** The untrusted marker; the envelope helper lives in @caravel/tools (shared with channel tools). */
export { UNTRUSTED_TAG };

/**
 * Before each model call, turns messages that reached the thread mid-run into user messages, in
 * arrival order, each exactly once (a message already in the conversation is not added again).
 * A trusted author's message carries that author's standing instructions (never anyone else's);
 * an untrusted author's carries none. A queue that cannot be read is reported and tried again
 * before the next call; instructions that cannot be read are reported and left out.
 */
export function messageQueueMiddleware(options: MessageQueueOptions): AgentMiddleware {
  const { threadId, queue, isTrustedAuthor, events } = options;
  const render = async (message: QueuedMessage): Promise<string> => {
    const trusted = isTrustedAuthor(message.author);
    const text = renderQueuedMessage(message, trusted);
    // A person's command (takeover) is not a request: it carries no instructions.
    if (!trusted || message.metadata || !options.userInstructions) return text;
    const instructions = await options.userInstructions
      .instructionsOf(message.author)
      .catch((error: unknown) => {
        const reason = describeError(error);
        events.emit({ type: 'user_instructions_unavailable', person: message.author, reason });
        return null;
      });
    if (instructions === null) return text;
    return withUserInstructions(text, [{ person: message.author, instructions }]);
  };
  return createMiddleware({
    name: 'message-queue',
    beforeModel: async (state) => {
      const known = new Set(state.messages.map((message) => message.id));
      let drained: QueuedMessage[];
      try {
        drained = await queue.drain(threadId, (id) => known.has(queuedMessageId({ id })));
      } catch (error) {
        events.emit({ type: 'message_queue_unavailable', threadId, reason: describeError(error) });
        return undefined;
      }
      const fresh = drained.filter((message) => {
        const id = queuedMessageId(message);
        if (known.has(id)) return false;
        known.add(id);
        return true;
      });
      if (fresh.length === 0) return undefined;
      const messages: HumanMessage[] = [];
      for (const message of fresh) {
        messages.push(
          new HumanMessage({
            id: queuedMessageId(message),
            content: await render(message),
            // Kept with the message in the checkpoint, so a resumed run still knows what it was.
            ...(message.metadata ? { additional_kwargs: { caravel: message.metadata } } : {}),
          }),
        );
      }
      return { messages };
    },
  });
}
