import { ScheduleThreadWakeup } from '@caravel/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { WakeupService } from '../services/wakeup.service.js';

/** `dispatch.<threadId>.wakeup`: a run's `schedule_thread_wakeup` call. */
@Controller()
export class WakeupHandler {
  constructor(@Inject(WakeupService) private readonly wakeups: WakeupService) {}

  @MessagePattern<string>(ScheduleThreadWakeup.pattern)
  schedule(@Payload() raw: unknown) {
    return this.wakeups.schedule(ScheduleThreadWakeup.parseRequest(raw));
  }
}
