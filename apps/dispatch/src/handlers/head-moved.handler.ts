import { PullRequestHeadMovedV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ThreadHeadService } from '../services/thread-head.service.js';

/** `trigger.pull_request.head_moved`: new commits on a pull request Caravel has a thread for. */
@Controller()
export class HeadMovedHandler {
  constructor(@Inject(ThreadHeadService) private readonly heads: ThreadHeadService) {}

  @ConsumeEvent(PullRequestHeadMovedV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof PullRequestHeadMovedV1>): Promise<void> {
    await this.heads.onHeadMoved(envelope);
  }
}
