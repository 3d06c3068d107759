import { RunFinishedV1, type EnvelopeOf } from '@caravel/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { DispatchService } from '../services/dispatch.service.js';

/** Run endings: frees the thread and starts whatever queued behind the run. */
@Controller()
export class RunFinishedHandler {
  constructor(@Inject(DispatchService) private readonly dispatch: DispatchService) {}

  @EventPattern<string>(RunFinishedV1.pattern, { durable: 'dispatch-run-finished', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof RunFinishedV1>): Promise<void> {
    await this.dispatch.onRunFinished(envelope);
  }
}
