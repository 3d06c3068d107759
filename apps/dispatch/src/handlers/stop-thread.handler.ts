import { StopThreadV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ThreadStopService } from '../services/thread-stop.service.js';

/** A person asks to stop a thread's work (Slack ❌, the dashboard, `caravel attach`). */
@Controller()
export class StopThreadHandler {
  constructor(@Inject(ThreadStopService) private readonly stops: ThreadStopService) {}

  @ConsumeEvent(StopThreadV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof StopThreadV1>): Promise<void> {
    await this.stops.onStop(envelope);
  }
}
