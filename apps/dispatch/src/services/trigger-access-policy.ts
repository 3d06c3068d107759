import type { DataOf, RepositoryRef, TriggerReceivedV1 } from '@caravel/contracts';
import type { PublicRepoGate, RepositoryAccessPolicy } from '@caravel/integrations';

type TriggerData = DataOf<typeof TriggerReceivedV1>;

/** Which check refused a trigger (the `check` label of `caravel_triggers_refused_total`). */
export type AccessCheck = 'public_repo_gate' | 'repository_access';

/**
 * What the trigger intake decided. A refusal carries the reason (logged) and, for a repository
 * the person may not use, the reply said in their thread; a refused GitHub actor is not answered
 * (a stranger on a public repository gets no public word from Caravel).
 */
export type TriggerAccess =
  | { allowed: true }
  | { allowed: false; check: 'public_repo_gate'; reason: string }
  | { allowed: false; check: 'repository_access'; reason: string; reply: string };

const ALLOWED: TriggerAccess = { allowed: true };

const sameRepository = (a: RepositoryRef, b: RepositoryRef | null | undefined): boolean =>
  b != null &&
  a.owner.toLowerCase() === b.owner.toLowerCase() &&
  a.name.toLowerCase() === b.name.toLowerCase();

/**
 * The repository a chat or tracker trigger works on when a person chose it, not an admin: the
 * trigger's own (named in its message) or, on a follow-up that names none, its thread's, unless
 * it is the one an admin chose for the place (`placeRepository`: the route, the default, the
 * Jira rule's). Anyone in a channel may use the admin's choice. Undefined for GitHub triggers
 * (the public-repository gate covers them) and for triggers an older ingress published without
 * `placeRepository` (it checked a named repository itself).
 */
export function repositoryChosenByPerson(
  trigger: Pick<TriggerData, 'source' | 'repository' | 'placeRepository'>,
  threadRepository: RepositoryRef | undefined,
): RepositoryRef | undefined {
  if (trigger.source === 'github' || trigger.placeRepository === undefined) return undefined;
  const used = trigger.repository ?? threadRepository;
  return used && !sameRepository(used, trigger.placeRepository) ? used : undefined;
}

/**
 * Who may have Caravel act, decided before a trigger creates or changes anything: on GitHub the
 * public-repository gate on the actor facts the ingress took from the signed payload; in chats
 * and trackers, the author of every trigger (first or follow-up) on a repository a person chose
 * must see it on GitHub. A question GitHub did not answer is thrown (the trigger is redelivered).
 */
export class TriggerAccessPolicy {
  constructor(
    private readonly gate: PublicRepoGate,
    private readonly access: RepositoryAccessPolicy,
  ) {}

  /** `threadRepository` is read only when a follow-up names no repository of its own. */
  async decide(
    trigger: TriggerData,
    threadRepository: () => Promise<RepositoryRef | undefined>,
  ): Promise<TriggerAccess> {
    if (trigger.githubActor) {
      const reason = await this.gate.refusal(trigger.githubActor);
      return reason ? { allowed: false, check: 'public_repo_gate', reason } : ALLOWED;
    }
    if (trigger.source === 'github' || trigger.placeRepository === undefined) return ALLOWED;
    const inThread = trigger.repository ? undefined : await threadRepository();
    const chosen = repositoryChosenByPerson(trigger, inThread);
    if (!chosen) return ALLOWED;
    const refused = await this.access.refusal({
      source: trigger.source,
      externalId: trigger.author.externalId,
      repository: chosen,
    });
    return refused ? { allowed: false, check: 'repository_access', ...refused } : ALLOWED;
  }
}
