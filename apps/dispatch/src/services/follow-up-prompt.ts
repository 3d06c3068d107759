import type { ThreadMessageRow } from '@caravel/db';
import { renderQueuedMessage } from '@caravel/middleware/queued-message';

/**
 * The prompt of a run made of follow-ups no run took: each message rendered as the injection
 * middleware renders it mid-run (untrusted authors' text marked), oldest first.
 */
export function followUpPrompt(messages: readonly ThreadMessageRow[]): string {
  return messages
    .map((m) => renderQueuedMessage({ id: m.id, text: m.text, author: m.author }, m.trusted))
    .join('\n\n');
}
