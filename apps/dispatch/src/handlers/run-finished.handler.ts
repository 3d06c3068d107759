import { RunFinishedV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DispatchService } from '../services/dispatch.service.js';

/** Run endings: frees the thread and starts whatever queued behind the run. */
@Controller()
export class RunFinishedHandler {
  constructor(@Inject(DispatchService) private readonly dispatch: DispatchService) {}

  @ConsumeEvent(RunFinishedV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunFinishedV1>): Promise<void> {
    await this.dispatch.onRunFinished(envelope);
  }
}
