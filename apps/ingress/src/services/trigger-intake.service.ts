import {
  CARAVEL_NAMESPACE,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  TriggerReceivedV1,
  uuidV5,
  type MessageDefinition,
} from '@caravel/contracts';
import { DeliveryRepository, ThreadRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type {
  HeadMovedDecision,
  RecordDecision,
  ReviewDecision,
  TriggerDecision,
  WebhookDecision,
} from '../events/webhook-decision.js';
import { GithubRepositoryPolicy } from '../events/github-repository-policy.js';
import { INGRESS_SETTINGS, type IngressSettings } from '../ingress.settings.js';
import { orgMembershipFrom, PublicRepoGate } from './public-repo-gate.js';
import {
  parseRepositoryRoute,
  parseRepositorySlug,
  RepositoryRoutes,
  resolveRepository,
  type RepositoryRoute,
} from './repository-routes.js';
import { TrustedAuthors } from './trusted-authors.js';
import { answers, type WebhookAnswer } from './webhook-answer.js';

/** A decision that is stored as a delivery. */
type Recorded = Exclude<WebhookDecision, { kind: 'ignore' }>;

/**
 * Dedupe and publish, the same for every source. The trigger's envelope id derives from the
 * semantic key (or the delivery id), so the bus itself drops a second publish of the same
 * request; the delivery is recorded only after the publish is acked, so a failed publish leaves
 * nothing behind and the sender's retry starts over.
 */
@Injectable()
export class TriggerIntakeService {
  private readonly trusted: TrustedAuthors;
  private readonly gate: PublicRepoGate;
  private readonly routes: RepositoryRoutes;
  private readonly allowed: GithubRepositoryPolicy;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly threads: ThreadRepository,
    private readonly publisher: MessagePublisher,
    @Inject(INGRESS_SETTINGS) settings: IngressSettings,
  ) {
    this.trusted = new TrustedAuthors(settings.TRUSTED_AUTHORS);
    this.gate = new PublicRepoGate(settings.PUBLIC_REPO_ORG_GATE, orgMembershipFrom(settings));
    this.routes = new RepositoryRoutes(
      settings.REPOSITORY_ROUTES.map(parseRepositoryRoute).filter(
        (route): route is RepositoryRoute => route !== undefined,
      ),
      settings.DEFAULT_REPOSITORY ? parseRepositorySlug(settings.DEFAULT_REPOSITORY) : undefined,
    );
    this.allowed = new GithubRepositoryPolicy(
      settings.ALLOWED_GITHUB_ORGS,
      settings.ALLOWED_GITHUB_REPOS,
    );
  }

  async take(decision: WebhookDecision, payload: unknown): Promise<WebhookAnswer> {
    if (decision.kind === 'ignore') return answers.ignored(decision.reason);
    const seen = await this.deliveries.findBySourceDelivery(decision.source, decision.deliveryId);
    if (seen) return answers.duplicate();
    switch (decision.kind) {
      case 'record':
        return this.recordOnly(decision, payload);
      case 'head':
        return this.headMoved(decision, payload);
      case 'review':
      case 'trigger': {
        const refusal = decision.actorCheck ? await this.gate.refusal(decision.actorCheck) : null;
        if (refusal) return answers.ignored(refusal);
        return decision.kind === 'review'
          ? this.reviewRequested(decision, payload)
          : this.trigger(decision, payload);
      }
    }
  }

  private async trigger(decision: TriggerDecision, payload: unknown): Promise<WebhookAnswer> {
    if (decision.requiresKnownThread && !(await this.threads.get(decision.threadId))) {
      return answers.ignored('not a thread Caravel is in');
    }
    const repository = await resolveRepository(decision, this.routes, async () =>
      Boolean((await this.threads.get(decision.threadId))?.repository),
    );
    // A repository named in a chat or tracker passes the same allowlist as GitHub's own.
    const refusal = repository ? this.allowed.refusal(repository) : null;
    if (refusal) return answers.ignored(refusal);
    const duplicate = await this.publishOnce(decision, TriggerReceivedV1, {
      threadId: decision.threadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      author: decision.author,
      text: decision.text,
      trusted: this.trusted.has(decision.source, decision.author.externalId),
      ...(repository ? { repository } : {}),
      replyTo: decision.replyTo,
    });
    return this.answer(decision, payload, duplicate);
  }

  private async reviewRequested(
    decision: ReviewDecision,
    payload: unknown,
  ): Promise<WebhookAnswer> {
    const duplicate = await this.publishOnce(decision, ReviewRequestedV1, {
      threadId: decision.threadId,
      pullRequestThreadId: decision.pullRequestThreadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      repository: decision.repository,
      pullRequest: decision.pullRequest,
      author: decision.author,
      reason: decision.reason,
    });
    return this.answer(decision, payload, duplicate);
  }

  /** Only a thread Caravel has learns its head; for any other the delivery is just recorded. */
  private async headMoved(decision: HeadMovedDecision, payload: unknown): Promise<WebhookAnswer> {
    if (!(await this.threads.get(decision.threadId))) return this.recordOnly(decision, payload);
    const duplicate = await this.publishOnce(decision, PullRequestHeadMovedV1, {
      threadId: decision.threadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      repository: decision.repository,
      pullRequest: decision.pullRequest,
      headSha: decision.headSha,
      ...(decision.previousSha ? { previousSha: decision.previousSha } : {}),
    });
    return this.answer(decision, payload, duplicate);
  }

  /**
   * Records the delivery, then answers. The bus decides who was first: of concurrent twins,
   * exactly the one whose publish was not a duplicate answers `accepted`, whichever records first.
   */
  private async answer(
    decision: Recorded,
    payload: unknown,
    duplicate: boolean,
  ): Promise<WebhookAnswer> {
    await this.record(decision, payload);
    return duplicate ? answers.duplicate() : answers.accepted(decision.threadId);
  }

  private async recordOnly(
    decision: RecordDecision | HeadMovedDecision,
    payload: unknown,
  ): Promise<WebhookAnswer> {
    const fresh = await this.record(decision, payload);
    return fresh ? answers.recorded(decision.threadId) : answers.duplicate();
  }

  /**
   * Publishes one message per request: its envelope id derives from the semantic key (or the
   * delivery id), so the bus drops a second publish. True when the bus already had it.
   */
  private async publishOnce<S extends z.ZodObject>(
    decision: Recorded,
    definition: MessageDefinition<S>,
    data: z.input<S>,
  ): Promise<boolean> {
    const requestKey = decision.semanticKey ?? `delivery:${decision.deliveryId}`;
    // `trigger.received` keeps its original `trigger:` id prefix, so ids survive upgrades.
    const prefix = definition.type === TriggerReceivedV1.type ? 'trigger' : definition.type;
    try {
      const ack = await this.publisher.publish(definition, data, {
        id: uuidV5(`${prefix}:${decision.source}:${requestKey}`, CARAVEL_NAMESPACE),
        idempotencyKey: `${decision.source}:${requestKey}`,
      });
      return ack.duplicate;
    } catch (error) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `the ${definition.type} message could not be published`,
        {
          cause: error,
        },
      );
    }
  }

  private record(decision: Recorded, payload: unknown): Promise<boolean> {
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
