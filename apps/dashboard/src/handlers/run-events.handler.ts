import { ReplayEvents, RunEvents, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunEventIndexService } from '../services/run-event-index.service.js';

/**
 * Every run event and every replay event, indexed in the order the runner published them per
 * thread: each family comes through one durable, so a run's end is never indexed before its
 * start or a step (readers take "its end is indexed" to mean "all of it is").
 */
@Controller()
export class RunEventsHandler {
  constructor(@Inject(RunEventIndexService) private readonly index: RunEventIndexService) {}

  @ConsumeEvent(RunEvents, { service: 'dashboard', ordered: true })
  async runEvent(
    @Payload() envelope: EnvelopeOf<typeof RunEvents>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(ReplayEvents, { service: 'dashboard', ordered: true })
  async replayEvent(
    @Payload() envelope: EnvelopeOf<typeof ReplayEvents>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }
}
