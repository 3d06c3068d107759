import { RunStartedV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DispatchService } from '../services/dispatch.service.js';

/** Run starts: the run's record says which runner has it. */
@Controller()
export class RunStartedHandler {
  constructor(@Inject(DispatchService) private readonly dispatch: DispatchService) {}

  @ConsumeEvent(RunStartedV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunStartedV1>): Promise<void> {
    await this.dispatch.onRunStarted(envelope);
  }
}
