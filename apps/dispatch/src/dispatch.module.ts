import {
  RunNoticeRepository,
  RunQueueRepository,
  RunRepository,
  ThreadMessageRepository,
  ThreadRepository,
  ThreadWakeupRepository,
} from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { DISPATCH_CLOCK, systemClock, type Clock } from './dispatch.clock.js';
import {
  DISPATCH_SETTINGS,
  dispatchServiceSettingsSchema,
  type DispatchSettings,
} from './dispatch.settings.js';
import { HeadMovedHandler } from './handlers/head-moved.handler.js';
import { RunFinishedHandler } from './handlers/run-finished.handler.js';
import { RunStartedHandler } from './handlers/run-started.handler.js';
import { RunStepHandler } from './handlers/run-step.handler.js';
import { TriggerReceivedHandler } from './handlers/trigger-received.handler.js';
import { WakeupHandler } from './handlers/wakeup.handler.js';
import { REPLY_PORT } from './replies/reply.port.js';
import { RunNotifierService } from './replies/run-notifier.service.js';
import { sourceReplyPort } from './replies/source-reply.port.js';
import { AdmissionService } from './services/admission.service.js';
import { DispatchSweepService } from './services/dispatch-sweep.service.js';
import { DispatchService } from './services/dispatch.service.js';
import { InterruptNotifier } from './services/interrupt-notifier.js';
import { ReconcileService } from './services/reconcile.service.js';
import { ThreadHeadService } from './services/thread-head.service.js';
import { WakeupService } from './services/wakeup.service.js';

function replyPort(settings: DispatchSettings) {
  const log = new Logger('DispatchReplies');
  return sourceReplyPort(settings, { warn: (m) => log.warn(m) });
}

const defaults = dispatchServiceSettingsSchema.parse({});

/**
 * Thread state machine: triggers in, run commands out through the fair-share queue, run endings
 * back (failure replies), the reconcile sweep and wakeups. The bare class runs on default
 * settings with no reply credentials; {@link DispatchModule.register} supplies parsed settings
 * (dynamic providers override the static ones of the same token).
 */
@Module({
  controllers: [
    TriggerReceivedHandler,
    RunStartedHandler,
    RunStepHandler,
    RunFinishedHandler,
    WakeupHandler,
    HeadMovedHandler,
  ],
  providers: [
    { provide: DISPATCH_SETTINGS, useValue: defaults },
    { provide: DISPATCH_CLOCK, useValue: systemClock },
    { provide: REPLY_PORT, useFactory: () => replyPort(defaults) },
    DispatchService,
    InterruptNotifier,
    AdmissionService,
    RunNotifierService,
    ReconcileService,
    WakeupService,
    ThreadHeadService,
    DispatchSweepService,
    repositoryProvider(ThreadRepository),
    repositoryProvider(RunRepository),
    repositoryProvider(ThreadMessageRepository),
    repositoryProvider(RunQueueRepository),
    repositoryProvider(RunNoticeRepository),
    repositoryProvider(ThreadWakeupRepository),
  ],
  exports: [DispatchSweepService],
})
export class DispatchModule {
  static register(settings: DispatchSettings, clock: Clock = systemClock): DynamicModule {
    return {
      module: DispatchModule,
      providers: [
        { provide: DISPATCH_SETTINGS, useValue: settings },
        { provide: DISPATCH_CLOCK, useValue: clock },
        { provide: REPLY_PORT, useFactory: () => replyPort(settings) },
      ],
    };
  }
}
