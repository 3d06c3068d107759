import { CARAVEL_NAMESPACE, TriggerReceivedV1, uuidV5 } from '@caravel/contracts';
import { DeliveryRepository, ThreadRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type {
  RecordDecision,
  TriggerDecision,
  WebhookDecision,
} from '../events/webhook-decision.js';
import { INGRESS_SETTINGS, type IngressSettings } from '../ingress.settings.js';
import { TrustedAuthors } from './trusted-authors.js';
import { answers, type WebhookAnswer } from './webhook-answer.js';

/**
 * Dedupe and publish, the same for every source. The trigger's envelope id derives from the
 * semantic key (or the delivery id), so the bus itself drops a second publish of the same
 * request; the delivery is recorded only after the publish is acked, so a failed publish leaves
 * nothing behind and the sender's retry starts over.
 */
@Injectable()
export class TriggerIntakeService {
  private readonly trusted: TrustedAuthors;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly threads: ThreadRepository,
    private readonly publisher: MessagePublisher,
    @Inject(INGRESS_SETTINGS) settings: IngressSettings,
  ) {
    this.trusted = new TrustedAuthors(settings.TRUSTED_AUTHORS);
  }

  async take(decision: WebhookDecision, payload: unknown): Promise<WebhookAnswer> {
    if (decision.kind === 'ignore') return answers.ignored(decision.reason);
    const seen = await this.deliveries.findBySourceDelivery(decision.source, decision.deliveryId);
    if (seen) return answers.duplicate();
    if (decision.kind === 'record') return this.recordOnly(decision, payload);
    if (decision.requiresKnownThread && !(await this.threads.get(decision.threadId))) {
      return answers.ignored('not a thread Caravel is in');
    }
    const ack = await this.publish(decision);
    const fresh = await this.record(decision, payload);
    return fresh && !ack.duplicate ? answers.accepted(decision.threadId) : answers.duplicate();
  }

  private async recordOnly(decision: RecordDecision, payload: unknown): Promise<WebhookAnswer> {
    const fresh = await this.record(decision, payload);
    return fresh ? answers.recorded(decision.threadId) : answers.duplicate();
  }

  private async publish(decision: TriggerDecision) {
    const requestKey = decision.semanticKey ?? `delivery:${decision.deliveryId}`;
    try {
      return await this.publisher.publish(
        TriggerReceivedV1,
        {
          threadId: decision.threadId,
          source: decision.source,
          deliveryId: decision.deliveryId,
          author: decision.author,
          text: decision.text,
          trusted: this.trusted.has(decision.source, decision.author.externalId),
          ...(decision.repository ? { repository: decision.repository } : {}),
          replyTo: decision.replyTo,
        },
        {
          id: uuidV5(`trigger:${decision.source}:${requestKey}`, CARAVEL_NAMESPACE),
          idempotencyKey: `${decision.source}:${requestKey}`,
        },
      );
    } catch (error) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'the trigger could not be published', {
        cause: error,
      });
    }
  }

  private record(decision: TriggerDecision | RecordDecision, payload: unknown): Promise<boolean> {
    return this.deliveries.record({
      id: uuidV5(`delivery:${decision.source}:${decision.deliveryId}`, CARAVEL_NAMESPACE),
      source: decision.source,
      deliveryId: decision.deliveryId,
      semanticKey: decision.semanticKey,
      threadId: decision.threadId,
      event: decision.event,
      payload,
    });
  }
}
