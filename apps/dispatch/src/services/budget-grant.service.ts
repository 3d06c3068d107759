import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  uuidV5,
  type EnvelopeOf,
  type TriggerReceivedV1,
} from '@caravel/contracts';
import { BudgetPauseRepository, ThreadPlanRepository } from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { RunNotifierService } from '../replies/run-notifier.service.js';
import { budgetGrantRefusedText, parseBudgetGrant, stalePauseText } from './budget-grant.js';

/** What a trigger was to a thread's budget pause. */
export type BudgetGrantStep =
  /** Not a grant (no pause awaits, or the words grant nothing): an ordinary trigger. */
  | 'none'
  /** Granted on the pause: the trigger starts the run that continues it. */
  | 'granted'
  /**
   * From someone who may not grant, or for a pause that is no longer open (its run ended
   * otherwise or was stopped, or a later run took the thread): answered, and the trigger goes no
   * further.
   */
  | 'refused';

/**
 * Grants a run paused at its budget more, from a reply in its thread ("continue with $5 more"):
 * only the thread's owner (its first requester) or a budget admin (`DISPATCH_BUDGET_ADMINS`) may;
 * anyone else is told so and nothing starts. A grant for a pause that is no longer open (its run
 * was stopped or ended otherwise, or a later run has worked on the thread since) is answered the
 * same way and resumes nothing. The grant is set on the thread's pause; the run the trigger then
 * starts takes it and continues the paused one from its checkpoint.
 */
@Injectable()
export class BudgetGrantService {
  private readonly log = new Logger('BudgetGrants');

  constructor(
    @Inject(BudgetPauseRepository) private readonly pauses: BudgetPauseRepository,
    @Inject(ThreadPlanRepository) private readonly owners: ThreadPlanRepository,
    @Inject(RunNotifierService) private readonly notifier: RunNotifierService,
    @Inject(DISPATCH_CONFIG) private readonly config: DispatchConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async onTrigger(trigger: EnvelopeOf<typeof TriggerReceivedV1>): Promise<BudgetGrantStep> {
    const { threadId, source, author, text, kind } = trigger.data;
    if (kind !== 'message') return 'none';
    const usd = parseBudgetGrant(text);
    if (usd === null) return 'none';
    const [pause] = await this.pauses.listAwaiting({
      threadId,
      ignoringTrigger: trigger.id,
      limit: 1,
    });
    if (!pause) return 'none';
    const who = `${source}:${author.externalId}`;
    if (!(await this.mayGrant(threadId, who))) {
      this.log.warn(`thread ${threadId}: ${who} may not grant budget; refused`);
      return this.refuse(trigger, budgetGrantRefusedText(who));
    }
    if (pause.standing !== 'open') {
      this.log.warn(`thread ${threadId}: grant for run ${pause.runId} (${pause.standing}) refused`);
      return this.refuse(trigger, stalePauseText(pause.standing, pause.budgetUsd));
    }
    await this.pauses.grant({ threadId, usd, by: who, at: this.clock.now() });
    this.log.log(`thread ${threadId}: ${who} granted $${usd} to continue its paused run`);
    return 'granted';
  }

  private async refuse(
    trigger: EnvelopeOf<typeof TriggerReceivedV1>,
    text: string,
  ): Promise<BudgetGrantStep> {
    const key = uuidV5(`budget-refused:${trigger.id}`, CARAVEL_NAMESPACE);
    await this.notifier.announce(trigger.data.threadId, key, text);
    return 'refused';
  }

  private async mayGrant(threadId: string, who: string): Promise<boolean> {
    if (this.config.budgets.admins.includes(who)) return true;
    return (await this.owners.ownerOf(threadId)) === who;
  }
}
