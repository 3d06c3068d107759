import { RunStepV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DispatchService } from '../services/dispatch.service.js';

/** Run steps: each one is a heartbeat of its run (the reconcile sweep reads them). */
@Controller()
export class RunStepHandler {
  constructor(@Inject(DispatchService) private readonly dispatch: DispatchService) {}

  @ConsumeEvent(RunStepV1, { service: 'dispatch' })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunStepV1>): Promise<void> {
    await this.dispatch.onRunStep(envelope);
  }
}
