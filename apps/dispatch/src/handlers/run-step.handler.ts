import { RunStepV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CiWatchIntakeService } from '../ci-watch/ci-watch-intake.service.js';
import { DispatchService } from '../services/dispatch.service.js';

/**
 * Run steps: each one is a heartbeat of its run (the reconcile sweep reads them), and a step that
 * opened or pushed to a pull request starts its CI watch.
 */
@Controller()
export class RunStepHandler {
  constructor(
    @Inject(DispatchService) private readonly dispatch: DispatchService,
    @Inject(CiWatchIntakeService) private readonly ciWatches: CiWatchIntakeService,
  ) {}

  @ConsumeEvent(RunStepV1, { service: 'dispatch' })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunStepV1>): Promise<void> {
    await this.dispatch.onRunStep(envelope);
    await this.ciWatches.onRunStep(envelope);
  }
}
