import { RunStepV1, type EnvelopeOf } from '@caravel/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DispatchService } from '../services/dispatch.service.js';

/** Run steps: each one is a heartbeat of its run (the reconcile sweep reads them). */
@Controller()
export class RunStepHandler {
  constructor(@Inject(DispatchService) private readonly dispatch: DispatchService) {}

  @EventPattern<string>(RunStepV1.pattern, { durable: 'dispatch-run-steps' })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunStepV1>): Promise<void> {
    await this.dispatch.onRunStep(envelope);
  }
}
