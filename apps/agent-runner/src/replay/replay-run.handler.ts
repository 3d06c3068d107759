import { ReplayRunV1, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { START_ACK_WAIT_MS } from '../services/lease-keeper.js';
import { ReplayService } from './replay.service.js';

/** `cmd.replay.run`: a finished run replayed in a sandbox of its own, one replay of a run at a time. */
@Controller()
export class ReplayRunHandler {
  constructor(@Inject(ReplayService) private readonly replays: ReplayService) {}

  @ConsumeEvent(ReplayRunV1, { service: 'agent-runner', ackWaitMs: START_ACK_WAIT_MS })
  async handle(
    @Payload() envelope: EnvelopeOf<typeof ReplayRunV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.replays.replay(envelope, () => context.working(), context.stopping);
  }
}
