import { CannedChatModel } from '@caravel/agent/langchain';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/**
 * A provider that does not answer: each call waits until its signal aborts, then fails with the
 * abort (as an HTTP client's aborted request does). `asked` resolves once the first call waits;
 * `aborted` counts the calls the signal ended.
 */
export class SilentModel extends CannedChatModel {
  aborted = 0;
  readonly asked: Promise<void>;
  private seen!: () => void;

  constructor(file: string) {
    super({ responses: [], file, kind: 'scripted' });
    this.asked = new Promise((resolve) => (this.seen = resolve));
  }

  override async _generate(
    _messages: BaseMessage[],
    options: this['ParsedCallOptions'],
  ): Promise<ChatResult> {
    this.seen();
    const { signal } = options;
    await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    this.aborted += 1;
    throw signal?.reason ?? new Error('aborted');
  }
}
