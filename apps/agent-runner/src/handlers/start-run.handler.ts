import { StartRunV1, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { START_ACK_WAIT_MS } from '../services/lease-keeper.js';
import { RunExecutorService } from '../services/run-executor.service.js';

/** `cmd.run.start`: one run per thread at a time, in order per thread, each run once. */
@Controller()
export class StartRunHandler {
  constructor(@Inject(RunExecutorService) private readonly executor: RunExecutorService) {}

  @ConsumeEvent(StartRunV1, {
    service: 'agent-runner',
    ordered: true,
    ackWaitMs: START_ACK_WAIT_MS,
  })
  async handle(
    @Payload() envelope: EnvelopeOf<typeof StartRunV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.executor.execute(envelope, () => context.working(), context.stopping);
  }
}
