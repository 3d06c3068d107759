import type { Envelope } from '@caravel/contracts';
import { RunEventRepository } from '@caravel/db';
import type { Delivery } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { RunEventNotifier } from './run-event-notifier.service.js';

interface RunScoped {
  threadId: string;
  runId: string;
}

/** Indexes every run event with its stream position, for the live view and replay. */
@Injectable()
export class RunEventIndexService {
  constructor(
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
    @Inject(RunEventNotifier) private readonly notifier: RunEventNotifier,
  ) {}

  async record(envelope: Envelope<RunScoped>, delivery: Delivery | null): Promise<void> {
    if (!delivery) return;
    await this.events.append({
      id: envelope.id,
      threadId: envelope.data.threadId,
      runId: envelope.data.runId,
      type: envelope.type,
      stream: delivery.stream,
      sequence: delivery.sequence,
      occurredAt: new Date(envelope.occurredAt),
      data: envelope.data,
    });
    this.notifier.notify(envelope.data.threadId);
  }
}
