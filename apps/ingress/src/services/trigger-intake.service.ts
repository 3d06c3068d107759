import {
  CARAVEL_NAMESPACE,
  CiCheckReportedV1,
  type RepositoryRef,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  StopThreadV1,
  TriggerReceivedV1,
  uuidV5,
  type MessageDefinition,
} from '@caravel/contracts';
import { DeliveryRepository, ThreadRepository, type NewDelivery } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import type { z } from 'zod';
import type { UntrustedBody } from '../events/untrusted-json.js';
import type {
  CiDecision,
  HeadMovedDecision,
  RecordDecision,
  ReviewDecision,
  StopDecision,
  TriggerDecision,
  WebhookDecision,
} from '../events/webhook-decision.js';
import { GithubRepositoryPolicy } from '../events/github-repository-policy.js';
import { payloadMalformed } from '../ingress.errors.js';
import { INGRESS_CONFIG, type IngressConfig } from '../ingress.config.js';
import { SlackMessageMap } from './slack-message-map.js';
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
 * The longest trigger text taken (UTF-16 units): twice GitHub's 65,536-character comment cap.
 * Even escaped six bytes a character, such a trigger fits NATS's default 1 MiB message, so a
 * longer one is refused up front (400) instead of failing its publish on every retry (503).
 */
export const MAX_TRIGGER_TEXT_CHARS = 131_072;

/**
 * How long a settle waits for the next ones to go with it. Nothing waits on a settle (the request
 * was answered when the bus acknowledged its message), so at 500 deliveries a second this makes
 * one statement of some 25 settles instead of 25 statements.
 */
export const SETTLE_GATHER_MS = 50;

/**
 * Dedupe and publish, the same for every source: **claim → publish → settle**. The delivery is
 * claimed (stored unsettled) before anything is published, so a body the database cannot take
 * fails before the bus sees it; the claim is released when the publish fails (503), so the
 * sender's retry starts over, and settled once the bus acknowledged it (after the answer: the
 * request does not wait for it). A claim left unsettled (a crash, a database lost mid-request,
 * a settle still in flight) is taken over by the retry: the message's envelope
 * id derives from the semantic key (or the delivery id), so the bus, and dispatch's inbox after
 * it, drop a second publish of the same request.
 */
@Injectable()
export class TriggerIntakeService implements OnApplicationShutdown {
  private readonly log = new Logger('TriggerIntake');
  /** Settles not yet done: the request was answered once the bus acknowledged its message. */
  private readonly settling = new Set<Promise<void>>();
  private readonly trusted: TrustedAuthors;
  private readonly routes: RepositoryRoutes;
  private readonly allowed: GithubRepositoryPolicy;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly threads: ThreadRepository,
    private readonly publisher: MessagePublisher,
    @Inject(INGRESS_CONFIG) config: IngressConfig,
    @Optional() @Inject(SlackMessageMap) private readonly slack?: SlackMessageMap,
  ) {
    const { routing, github } = config;
    this.trusted = new TrustedAuthors(routing.trustedAuthors);
    this.routes = new RepositoryRoutes(
      routing.repositoryRoutes
        .map(parseRepositoryRoute)
        .filter((route): route is RepositoryRoute => route !== undefined),
      routing.defaultRepository ? parseRepositorySlug(routing.defaultRepository) : undefined,
    );
    this.allowed = new GithubRepositoryPolicy(github.allowedOrgs, github.allowedRepos);
  }

  /** Shutdown waits for the settles of requests already answered. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.settling);
  }

  /** `body` is what {@link readUntrustedJson} made of the request: stored as the delivery. */
  async take(given: WebhookDecision, body: UntrustedBody): Promise<WebhookAnswer> {
    // A Slack message's thread is the one the message map knows (a moved thread, a deleted root).
    // Awaited only where it has something to do: most deliveries have nothing for the map, and an
    // await costs every one of them. Who may have Caravel act is dispatch's decision, behind the
    // bus: the ingress asks nothing before it publishes, so an outage there loses no webhook.
    const decision =
      this.slack && SlackMessageMap.concerns(given) ? await this.slack.resolve(given) : given;
    if (decision.kind === 'ignore') return answers.ignored(decision.reason);
    switch (decision.kind) {
      case 'record':
        return this.recordOnly(decision, body);
      case 'head':
        return this.headMoved(decision, body);
      case 'ci':
        return this.ciReported(decision, body);
      case 'stop':
        return this.stop(decision, body);
      case 'review':
        return this.reviewRequested(decision, body);
      case 'trigger':
        return this.trigger(decision, body);
    }
  }

  private async trigger(decision: TriggerDecision, body: UntrustedBody): Promise<WebhookAnswer> {
    if (decision.text.length > MAX_TRIGGER_TEXT_CHARS) {
      throw payloadMalformed(
        decision.source,
        `the text is ${decision.text.length} characters long; at most ${MAX_TRIGGER_TEXT_CHARS} are taken`,
      );
    }
    if (decision.requiresKnownThread && !(await this.threads.get(decision.threadId))) {
      return answers.ignored('not a thread Caravel is in');
    }
    const repository =
      decision.repository ??
      (await resolveRepository(decision, this.routes, async () =>
        Boolean((await this.threads.get(decision.threadId))?.repository),
      ));
    // A repository named in a chat or tracker passes the same allowlist as GitHub's own.
    const refusal = repository ? this.allowed.refusal(repository) : null;
    if (refusal) return answers.ignored(refusal);
    const data: z.input<typeof TriggerReceivedV1.dataSchema> = {
      threadId: decision.threadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      author: decision.author,
      text: decision.text,
      trusted: this.trusted.has(decision.source, decision.author.externalId),
      replyTo: decision.replyTo,
    };
    if (repository) data.repository = repository;
    if (decision.subject) data.subject = decision.subject;
    // What dispatch decides on: the GitHub actor (the public-repository gate); in a chat or
    // tracker, the place's repository, so one a person chose, follow-ups' too, is checked.
    if (decision.actorCheck) data.githubActor = decision.actorCheck;
    if (decision.source !== 'github') data.placeRepository = this.placeRepository(decision);
    const duplicate = await this.publishOnce(decision, body, TriggerReceivedV1, data);
    if (this.slack && decision.slackMessage) await this.slack.remember(decision);
    return this.answer(decision, duplicate);
  }

  /** The repository an admin chose for the trigger's place: the Jira rule's, the route, the default. */
  private placeRepository(decision: TriggerDecision): RepositoryRef | null {
    return (
      decision.repository ?? this.routes.defaultFor(decision.source, decision.container) ?? null
    );
  }

  /**
   * A stop request acts only on a thread Caravel has (the one the message started or joined, else
   * the one it is the root of), and only from a trusted author: the same people whose requests
   * Caravel takes as instructions. Anyone else is answered with the reason and stops nothing.
   */
  private async stop(decision: StopDecision, body: UntrustedBody): Promise<WebhookAnswer> {
    const who = `${decision.source}:${decision.author.externalId}`;
    if (!this.trusted.has(decision.source, decision.author.externalId)) {
      this.log.warn(`stop request from ${who} refused: not a trusted author`);
      return answers.ignored(`${who} may not stop Caravel (not in TRUSTED_AUTHORS)`);
    }
    const asked = await this.deliveries.findBySemanticKey(decision.source, decision.messageKey);
    const threadId = asked?.threadId ?? decision.threadId;
    if (!(await this.threads.get(threadId))) return answers.ignored('not a thread Caravel is in');
    const resolved = { ...decision, threadId };
    const duplicate = await this.publishOnce(resolved, body, StopThreadV1, {
      threadId,
      source: decision.source,
      requestedBy: decision.author,
      requestId: decision.deliveryId,
    });
    return this.answer(resolved, duplicate);
  }

  private async reviewRequested(
    decision: ReviewDecision,
    body: UntrustedBody,
  ): Promise<WebhookAnswer> {
    const duplicate = await this.publishOnce(decision, body, ReviewRequestedV1, {
      threadId: decision.threadId,
      pullRequestThreadId: decision.pullRequestThreadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      repository: decision.repository,
      pullRequest: decision.pullRequest,
      author: decision.author,
      reason: decision.reason,
      githubActor: decision.actorCheck,
    });
    return this.answer(decision, duplicate);
  }

  /** Only a thread Caravel has learns its head; for any other the delivery is just recorded. */
  private async headMoved(
    decision: HeadMovedDecision,
    body: UntrustedBody,
  ): Promise<WebhookAnswer> {
    if (!(await this.threads.get(decision.threadId))) return this.recordOnly(decision, body);
    const duplicate = await this.publishOnce(decision, body, PullRequestHeadMovedV1, {
      threadId: decision.threadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      repository: decision.repository,
      pullRequest: decision.pullRequest,
      headSha: decision.headSha,
      ...(decision.previousSha ? { previousSha: decision.previousSha } : {}),
    });
    return this.answer(decision, duplicate);
  }

  /**
   * A check on a commit goes to dispatch's CI babysitting, which looks its pull requests up
   * itself: published whatever the thread (an agent PR's thread is often not the PR's own).
   */
  private async ciReported(decision: CiDecision, body: UntrustedBody): Promise<WebhookAnswer> {
    const duplicate = await this.publishOnce(decision, body, CiCheckReportedV1, {
      threadId: decision.threadId,
      source: decision.source,
      deliveryId: decision.deliveryId,
      event: decision.ciEvent,
      repository: decision.repository,
      headSha: decision.headSha,
      pullRequests: decision.pullRequests,
      check: decision.check,
    });
    return duplicate ? answers.duplicate() : answers.recorded(decision.threadId);
  }

  /**
   * The bus decides who was first: of concurrent twins, exactly the one whose publish was not a
   * duplicate answers `accepted`.
   */
  private answer(decision: Recorded, duplicate: boolean): WebhookAnswer {
    return duplicate ? answers.duplicate() : answers.accepted(decision.threadId);
  }

  private async recordOnly(
    decision: RecordDecision | HeadMovedDecision,
    body: UntrustedBody,
  ): Promise<WebhookAnswer> {
    const fresh = await this.deliveries.record(this.deliveryOf(decision, body));
    return fresh ? answers.recorded(decision.threadId) : answers.duplicate();
  }

  /**
   * Claims the delivery, publishes its one message, settles the claim; true when it was a
   * repeat (already settled, or the bus already had the message). Once the bus has acknowledged
   * it the request is answered without waiting for the settle: the trigger is out, and a repeat
   * that finds the claim still unsettled (the settle in flight, failed or lost to a crash)
   * publishes again, is dropped by the bus as a duplicate, and settles it.
   */
  private async publishOnce<S extends z.ZodObject>(
    decision: Recorded,
    body: UntrustedBody,
    definition: MessageDefinition<S>,
    data: z.input<S>,
  ): Promise<boolean> {
    const delivery = this.deliveryOf(decision, body);
    const claim = await this.deliveries.claim(delivery);
    if (claim.outcome === 'settled') return true;
    const requestKey = decision.semanticKey ?? `delivery:${decision.deliveryId}`;
    // `trigger.received` keeps its original `trigger:` id prefix, so ids survive upgrades.
    const prefix = definition.type === TriggerReceivedV1.type ? 'trigger' : definition.type;
    let duplicate: boolean;
    try {
      const ack = await this.publisher.publish(definition, data, {
        id: uuidV5(`${prefix}:${decision.source}:${requestKey}`, CARAVEL_NAMESPACE),
        idempotencyKey: `${decision.source}:${requestKey}`,
      });
      duplicate = ack.duplicate;
    } catch (error) {
      if (claim.outcome === 'claimed') await this.releaseClaim(delivery.id);
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `the ${definition.type} message could not be published`,
        { cause: error },
      );
    }
    this.settleInBackground(claim.outcome === 'claimed' ? delivery.id : claim.existing?.id);
    return duplicate;
  }

  /** A release that fails leaves the claim for the retry to take over (see {@link take}). */
  private async releaseClaim(id: string): Promise<void> {
    try {
      await this.deliveries.release(id);
    } catch (error) {
      this.log.warn(
        `delivery ${id}: the failed publish's claim stays for the retry (${String(error)})`,
      );
    }
  }

  private settleInBackground(id: string | undefined): void {
    if (!id) return;
    const settle = this.settle(id);
    this.settling.add(settle);
    void settle.then(() => this.settling.delete(settle));
  }

  /** Settles a published delivery's claim; a failure is logged (a repeat settles it). */
  private async settle(id: string): Promise<void> {
    try {
      await this.deliveries.settle(id);
    } catch (error) {
      this.log.warn(`delivery ${id}: published, but not marked settled (${String(error)})`);
    }
  }

  private deliveryOf(decision: Recorded, body: UntrustedBody): NewDelivery {
    return {
      id: uuidV5(`delivery:${decision.source}:${decision.deliveryId}`, CARAVEL_NAMESPACE),
      source: decision.source,
      deliveryId: decision.deliveryId,
      semanticKey: decision.semanticKey,
      threadId: decision.threadId,
      event: decision.event,
      payload: body.payload,
      payloadJson: body.json,
      payloadSha256: body.sha256,
    };
  }
}
