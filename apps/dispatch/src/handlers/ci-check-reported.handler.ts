import { CiCheckReportedV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CiWatchIntakeService } from '../ci-watch/ci-watch-intake.service.js';

/** `trigger.ci.check_reported`: a check on a commit; the watched pull requests there evaluate. */
@Controller()
export class CiCheckReportedHandler {
  constructor(@Inject(CiWatchIntakeService) private readonly watches: CiWatchIntakeService) {}

  @ConsumeEvent(CiCheckReportedV1, { service: 'dispatch', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof CiCheckReportedV1>): Promise<void> {
    await this.watches.onCheckReported(envelope);
  }
}
