import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  repositoryRef,
  uuidV5,
  type EnvelopeOf,
  type TriggerReceivedV1,
} from '@caravel/contracts';
import { ThreadRepository, TriggerRefusalRepository, type IdentityRepository } from '@caravel/db';
import {
  CachedRepositoryPermissions,
  IdentityDirectory,
  IntegrationAdapters,
  publicRepoGateOf,
  RepositoryAccessPolicy,
} from '@caravel/integrations';
import { triggersRefused } from '@caravel/metrics';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { DispatchConfig } from '../dispatch.config.js';
import { REPLY_PORT, type ReplyPort } from '../replies/reply.port.js';
import { TriggerAccessPolicy, type TriggerAccess } from './trigger-access-policy.js';

type Trigger = EnvelopeOf<typeof TriggerReceivedV1>;

/** How long a refusal stays in `trigger_refusals` (the dispatch sweep deletes older ones). */
export const TRIGGER_REFUSAL_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * The policy as dispatch holds it: asked as its GitHub App (`GITHUB_TOKEN` for permissions in
 * development), people's GitHub logins from the identity map, permissions kept a few minutes,
 * the gate's membership answers `PUBLIC_REPO_GATE_CACHE_SECONDS`.
 */
export function triggerAccessPolicy(
  config: DispatchConfig,
  identities: IdentityRepository,
  clock: Clock,
  adapters: Pick<
    IntegrationAdapters,
    'orgMembership' | 'repositoryAccess'
  > = new IntegrationAdapters(config.integrations),
): TriggerAccessPolicy {
  const now = () => clock.now().getTime();
  const permissions = adapters.repositoryAccess();
  return new TriggerAccessPolicy(
    // A stranger who comments again and again costs one question to GitHub per cache period.
    publicRepoGateOf(config.access, adapters.orgMembership(), now),
    new RepositoryAccessPolicy(
      config.access.repositoryAccessCheck,
      new IdentityDirectory(identities),
      // A burst of follow-ups in one thread is one question to GitHub.
      permissions && new CachedRepositoryPermissions(permissions, now),
    ),
  );
}

/**
 * The trigger intake's first step (see {@link TriggerAccessPolicy}), asked as the GitHub App
 * dispatch holds: the ingress publishes what the decision needs and asks nothing, so a lookup
 * that fails is a redelivery here, not a webhook lost at the edge. A refused trigger creates and
 * runs nothing; it is logged, recorded (`trigger_refusals`, kept
 * {@link TRIGGER_REFUSAL_RETENTION_MS}), counted (`caravel_triggers_refused_total`) and, for a
 * repository the person may not use, answered once in their thread.
 */
@Injectable()
export class TriggerAccessService {
  private readonly log = new Logger('TriggerAccess');

  constructor(
    @Inject(TriggerAccessPolicy) private readonly policy: TriggerAccessPolicy,
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(TriggerRefusalRepository) private readonly refusals: TriggerRefusalRepository,
    @Inject(REPLY_PORT) private readonly replies: ReplyPort,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** True when the trigger may go on; false when it was refused (and answered where due). */
  async admits(trigger: Trigger): Promise<boolean> {
    const decision = await this.policy.decide(trigger.data, () => this.threadRepository(trigger));
    if (decision.allowed) return true;
    const { source, threadId } = trigger.data;
    this.log.warn(
      `trigger ${trigger.id} (${source}:${trigger.data.deliveryId}, thread ${threadId}) refused by the ${decision.check.replaceAll('_', '-')} check: ${decision.reason}`,
    );
    const recorded = await this.refusals.record({
      triggerId: trigger.id,
      threadId,
      source,
      author: `${source}:${trigger.data.author.externalId}`,
      rule: decision.check,
      reason: decision.reason,
      refusedAt: this.clock.now(),
    });
    if (recorded) triggersRefused.inc({ source, check: decision.check });
    await this.answer(trigger, decision);
    return false;
  }

  /** Deletes refusals older than {@link TRIGGER_REFUSAL_RETENTION_MS}; how many (the sweep's). */
  async pruneRefusals(): Promise<number> {
    const before = new Date(this.clock.now().getTime() - TRIGGER_REFUSAL_RETENTION_MS);
    return this.refusals.deleteBefore(before);
  }

  private async threadRepository(trigger: Trigger) {
    const parsed = repositoryRef.safeParse(
      (await this.threads.get(trigger.data.threadId))?.repository,
    );
    return parsed.success ? parsed.data : undefined;
  }

  /** Posts the refusal once per request; a reply that fails is logged (the refusal stands). */
  private async answer(trigger: Trigger, decision: TriggerAccess): Promise<void> {
    if (decision.allowed || decision.check !== 'repository_access') return;
    const { source, replyTo } = trigger.data;
    // The ingress's key when it answered: one reply per request, however often it is refused.
    const key = uuidV5(`repository-refused:${trigger.idempotencyKey}`, CARAVEL_NAMESPACE);
    try {
      await this.replies.reply({ source, replyTo }, key, decision.reply);
    } catch (error) {
      this.log.warn(`trigger ${trigger.id}: the refusal could not be posted (${String(error)})`);
    }
  }
}
