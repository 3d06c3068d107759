import { ReplayRunV1, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunEventIndexService } from '../services/run-event-index.service.js';

/**
 * A replay's request, indexed beside the run it replays so a pending one shows. Its start, each
 * replayed call and its verdict are events of the runner (`RunEventsHandler`); the thread's event
 * stream carries them with its runs'.
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
}
