import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { summarizedTurns } from './context-window.middleware.js';

/**
 * How many answers of the run the conversation holds: the model's messages after the run's
 * prompt, those a summary replaced included. The number of the run's turn about to be answered,
 * and of the model calls the run has made (each call leaves one answer; an answer it had to ask
 * again for leaves one too). Read from the conversation rather than kept in a counter of its own,
 * so a step writes no more than its messages, and a resumed run counts what its checkpoint holds.
 */
export function answersThisRun(
  messages: readonly BaseMessage[],
  promptMessageId: string | undefined,
): number {
  const start =
    promptMessageId === undefined ? -1 : messages.findIndex((m) => m.id === promptMessageId);
  let answers = 0;
  for (let i = start + 1; i < messages.length; i += 1) {
    const message = messages[i]!;
    answers += (AIMessage.isInstance(message) ? 1 : 0) + summarizedTurns(message);
  }
  return answers;
}
