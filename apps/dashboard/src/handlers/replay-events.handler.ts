import {
  ReplayFinishedV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  type EnvelopeOf,
} from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunEventIndexService } from '../services/run-event-index.service.js';

/**
 * Replays, indexed beside the run they replay: the request (so a pending one shows), its start,
 * each replayed call and its verdict. The thread's event stream carries them with its runs'.
 */
@Controller()
export class ReplayEventsHandler {
  constructor(@Inject(RunEventIndexService) private readonly index: RunEventIndexService) {}

  @ConsumeEvent(ReplayRunV1, { service: 'dashboard', ordered: true })
  async requested(
    @Payload() envelope: EnvelopeOf<typeof ReplayRunV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(ReplayStartedV1, { service: 'dashboard', ordered: true })
  async started(
    @Payload() envelope: EnvelopeOf<typeof ReplayStartedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(ReplayStepV1, { service: 'dashboard', ordered: true })
  async step(
    @Payload() envelope: EnvelopeOf<typeof ReplayStepV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }

  @ConsumeEvent(ReplayFinishedV1, { service: 'dashboard', ordered: true })
  async finished(
    @Payload() envelope: EnvelopeOf<typeof ReplayFinishedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.index.record(envelope, context.delivery);
  }
}
