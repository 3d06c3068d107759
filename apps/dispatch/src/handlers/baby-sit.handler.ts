import { ManageBabySit, type RequestOf } from '@caravel/contracts';
import { ServeRequest } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CiWatchIntakeService } from '../ci-watch/ci-watch-intake.service.js';

/** `dispatch.<threadId>.baby-sit`: a run's `manage_baby_sit` call (a person asked). */
@Controller()
export class BabySitHandler {
  constructor(@Inject(CiWatchIntakeService) private readonly watches: CiWatchIntakeService) {}

  @ServeRequest(ManageBabySit)
  manage(@Payload() request: RequestOf<typeof ManageBabySit>) {
    return this.watches.manage(request);
  }
}
