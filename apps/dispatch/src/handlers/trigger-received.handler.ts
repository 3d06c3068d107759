import { TriggerReceivedV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CiWatchIntakeService } from '../ci-watch/ci-watch-intake.service.js';
import { BudgetGrantService } from '../services/budget-grant.service.js';
import { DispatchService } from '../services/dispatch.service.js';
import { TriggerAccessService } from '../services/trigger-access.service.js';

/**
 * Triggers from every source, in order per thread (a PR comment may also switch CI auto-fix). One
 * that is refused (who may have Caravel act) changes nothing, CI auto-fix and budgets included.
 */
@Controller()
export class TriggerReceivedHandler {
  constructor(
    @Inject(TriggerAccessService) private readonly access: TriggerAccessService,
    @Inject(DispatchService) private readonly dispatch: DispatchService,
    @Inject(CiWatchIntakeService) private readonly ciWatches: CiWatchIntakeService,
    @Inject(BudgetGrantService) private readonly budgetGrants: BudgetGrantService,
  ) {}

  @ConsumeEvent(TriggerReceivedV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof TriggerReceivedV1>): Promise<void> {
    if (!(await this.access.admits(envelope))) return;
    await this.ciWatches.onTrigger(envelope);
    // A refused budget grant has been answered; a granted one starts the paused run's continuation.
    if ((await this.budgetGrants.onTrigger(envelope)) === 'refused') return;
    await this.dispatch.onTrigger(envelope);
  }
}
