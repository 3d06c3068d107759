import { ScheduleThreadWakeup, type RequestOf } from '@caravel/contracts';
import { ServeRequest } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { WakeupService } from '../services/wakeup.service.js';

/** `dispatch.<threadId>.wakeup`: a run's `schedule_thread_wakeup` call. */
@Controller()
export class WakeupHandler {
  constructor(@Inject(WakeupService) private readonly wakeups: WakeupService) {}

  @ServeRequest(ScheduleThreadWakeup)
  schedule(@Payload() request: RequestOf<typeof ScheduleThreadWakeup>) {
    return this.wakeups.schedule(request);
  }
}
