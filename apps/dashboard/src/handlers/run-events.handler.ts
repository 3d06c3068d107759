import {
  RunAttemptsSelectedV1,
  RunFinishedV1,
  RunOutputV1,
  RunStartedV1,
  RunStepV1,
  type EnvelopeOf,
} from '@caravel/contracts';
import { CaravelContext } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { RunEventIndexService } from '../services/run-event-index.service.js';

/** Every run event, indexed in order per thread. */
@Controller()
export class RunEventsHandler {
  constructor(@Inject(RunEventIndexService) private readonly index: RunEventIndexService) {}

  @EventPattern<string>(RunStartedV1.pattern, { durable: 'dashboard-run-started', ordered: true })
  async started(
    @Payload() envelope: EnvelopeOf<typeof RunStartedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @EventPattern<string>(RunStepV1.pattern, { durable: 'dashboard-run-step', ordered: true })
  async step(
    @Payload() envelope: EnvelopeOf<typeof RunStepV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @EventPattern<string>(RunOutputV1.pattern, { durable: 'dashboard-run-output', ordered: true })
  async output(
    @Payload() envelope: EnvelopeOf<typeof RunOutputV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @EventPattern<string>(RunFinishedV1.pattern, { durable: 'dashboard-run-finished', ordered: true })
  async finished(
    @Payload() envelope: EnvelopeOf<typeof RunFinishedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @EventPattern<string>(RunAttemptsSelectedV1.pattern, {
    durable: 'dashboard-run-attempts-selected',
    ordered: true,
  })
  async attemptsSelected(
    @Payload() envelope: EnvelopeOf<typeof RunAttemptsSelectedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }
}
