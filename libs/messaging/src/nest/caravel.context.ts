import { BaseRpcContext } from '@nestjs/microservices';
import type { Delivery } from '../bus.port.js';
import type { MessageTrace } from '../trace/index.js';

const NEVER = new AbortController().signal;

/** What a Caravel handler can ask about the message it is handling (`@Ctx() ctx: CaravelContext`). */
export class CaravelContext extends BaseRpcContext<[Delivery | null, string, MessageTrace]> {
  /** The delivery being handled; null for request/reply handlers. */
  get delivery(): Delivery | null {
    return this.getArgByIndex(0) as Delivery | null;
  }

  get subject(): string {
    return this.getArgByIndex(1) as string;
  }

  /** The message's correlation id and W3C `traceparent` (also `currentTrace()` while it runs). */
  get trace(): MessageTrace {
    return this.getArgByIndex(2) as MessageTrace;
  }

  /**
   * Aborted when this replica's consumer begins to stop (see `Delivery.stopping`); never for
   * requests.
   */
  get stopping(): AbortSignal {
    return this.delivery?.stopping ?? NEVER;
  }

  /** Keeps a long handler's delivery from being redelivered (no-op for requests). */
  async working(): Promise<void> {
    await this.delivery?.working();
  }
}
