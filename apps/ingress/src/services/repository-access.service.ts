import { CLOCK, type Clock } from '@caravel/config';
import { CARAVEL_NAMESPACE, uuidV5, type RepositoryRef } from '@caravel/contracts';
import { IdentityRepository } from '@caravel/db';
import {
  CachedRepositoryPermissions,
  IdentityDirectory,
  IntegrationAdapters,
  type RepositoryPermissionLookup,
} from '@caravel/integrations';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { TriggerDecision } from '../events/webhook-decision.js';
import { INGRESS_CONFIG, type IngressConfig } from '../ingress.config.js';
import { REPOSITORY_PERMISSIONS } from './github-lookups.js';
import { RepositoryAccessPolicy } from './repository-access-policy.js';

/**
 * The access check of a repository a person named in a chat or tracker message (see
 * {@link RepositoryAccessPolicy}): a refusal is logged and answered in the thread it came from,
 * and the trigger goes no further (nothing is published, so nothing is cloned or run).
 */
@Injectable()
export class RepositoryAccessService {
  private readonly log = new Logger('RepositoryAccess');
  private readonly policy: RepositoryAccessPolicy;

  constructor(
    @Inject(IdentityRepository) identities: IdentityRepository,
    @Inject(IntegrationAdapters) private readonly adapters: IntegrationAdapters,
    @Inject(REPOSITORY_PERMISSIONS) permissions: RepositoryPermissionLookup,
    @Inject(INGRESS_CONFIG) config: IngressConfig,
    @Inject(CLOCK) clock: Clock,
  ) {
    // Kept here, before the bus: a burst of messages naming one repository is one request.
    this.policy = new RepositoryAccessPolicy(
      config.routing.repositoryAccessCheck,
      new IdentityDirectory(identities),
      new CachedRepositoryPermissions(permissions, () => clock.now().getTime()),
    );
  }

  /** Null when the trigger's author may use `repository`; otherwise the reason, said in the thread. */
  async refusal(decision: TriggerDecision, repository: RepositoryRef): Promise<string | null> {
    const refused = await this.policy.refusal({
      source: decision.source,
      externalId: decision.author.externalId,
      repository,
    });
    if (!refused) return null;
    this.log.warn(`trigger ${decision.source}:${decision.deliveryId} refused: ${refused.reason}`);
    await this.answer(decision, refused.reply);
    return refused.reason;
  }

  /** Posts the refusal once per request; a reply that fails is logged (the refusal stands). */
  private async answer(decision: TriggerDecision, text: string): Promise<void> {
    const request = decision.semanticKey ?? `delivery:${decision.deliveryId}`;
    const key = uuidV5(`repository-refused:${decision.source}:${request}`, CARAVEL_NAMESPACE);
    try {
      await this.adapters
        .replyChannel({ source: decision.source, replyTo: decision.replyTo }, key)
        .reply(text);
    } catch (error) {
      this.log.warn(
        `trigger ${decision.source}:${decision.deliveryId}: the refusal could not be posted (${String(error)})`,
      );
    }
  }
}
