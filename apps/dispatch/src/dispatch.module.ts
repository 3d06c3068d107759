import { CLOCK, systemClock, type Clock } from '@caravel/config';
import {
  BudgetPauseRepository,
  CiWatchRepository,
  EnabledRepositoryRepository,
  IdentityRepository,
  RunNoticeRepository,
  RunQueueRepository,
  RunRepository,
  SlackMessageRepository,
  ThreadMessageRepository,
  ThreadPlanRepository,
  PullRequestHeadRepository,
  ThreadRepository,
  ThreadStopRepository,
  ThreadWakeupRepository,
  TriggerRefusalRepository,
  UserProfileRepository,
} from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import {
  DISPATCH_CONFIG,
  dispatchConfigOf,
  dispatchEnvSchema,
  type DispatchConfig,
} from './dispatch.config.js';
import { CiWatchIntakeService } from './ci-watch/ci-watch-intake.service.js';
import { CiWatchSweepService } from './ci-watch/ci-watch-sweep.service.js';
import { CiWatchService } from './ci-watch/ci-watch.service.js';
import { githubPullRequestState, PULL_REQUEST_STATE } from './ci-watch/pull-request-state.port.js';
import { BabySitHandler } from './handlers/baby-sit.handler.js';
import { CiCheckReportedHandler } from './handlers/ci-check-reported.handler.js';
import { HeadMovedHandler } from './handlers/head-moved.handler.js';
import { RunFinishedHandler } from './handlers/run-finished.handler.js';
import { RunStartedHandler } from './handlers/run-started.handler.js';
import { RunStepHandler } from './handlers/run-step.handler.js';
import { StopThreadHandler } from './handlers/stop-thread.handler.js';
import { TriggerReceivedHandler } from './handlers/trigger-received.handler.js';
import { WakeupHandler } from './handlers/wakeup.handler.js';
import { REPLY_PORT } from './replies/reply.port.js';
import { RunNotifierService } from './replies/run-notifier.service.js';
import { sourceReplyPort } from './replies/source-reply.port.js';
import { AdmissionService } from './services/admission.service.js';
import { BudgetGrantService } from './services/budget-grant.service.js';
import { QueueMetricsService } from './services/queue-metrics.service.js';
import { DispatchSweepService } from './services/dispatch-sweep.service.js';
import { DispatchService } from './services/dispatch.service.js';
import { InterruptNotifier } from './services/interrupt-notifier.js';
import { ReconcileService } from './services/reconcile.service.js';
import { ThreadHeadService } from './services/thread-head.service.js';
import { ThreadStopService } from './services/thread-stop.service.js';
import { TriggerAccessPolicy } from './services/trigger-access-policy.js';
import { TriggerAccessService, triggerAccessPolicy } from './services/trigger-access.service.js';
import { WakeupService } from './services/wakeup.service.js';

function replyPort(config: DispatchConfig, slackMessages?: SlackMessageRepository) {
  const log = new Logger('DispatchReplies');
  return sourceReplyPort(config.integrations, { warn: (m) => log.warn(m) }, slackMessages);
}

const defaults = dispatchConfigOf(dispatchEnvSchema.parse({}));

/**
 * Thread state machine: triggers in, run commands out through the fair-share queue, run endings
 * back (failure replies), the reconcile sweep and wakeups. The bare class runs on the default
 * configuration with no reply credentials; {@link DispatchModule.register} supplies the parsed one
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
    CiCheckReportedHandler,
    BabySitHandler,
    StopThreadHandler,
  ],
  providers: [
    { provide: DISPATCH_CONFIG, useValue: defaults },
    { provide: CLOCK, useValue: systemClock },
    {
      provide: REPLY_PORT,
      useFactory: (slack: SlackMessageRepository) => replyPort(defaults, slack),
      inject: [SlackMessageRepository],
    },
    {
      provide: PULL_REQUEST_STATE,
      useFactory: () => githubPullRequestState(defaults.integrations),
    },
    {
      provide: TriggerAccessPolicy,
      useFactory: (identities: IdentityRepository, clock: Clock) =>
        triggerAccessPolicy(defaults, identities, clock),
      inject: [IdentityRepository, CLOCK],
    },
    DispatchService,
    TriggerAccessService,
    InterruptNotifier,
    AdmissionService,
    RunNotifierService,
    ReconcileService,
    WakeupService,
    ThreadHeadService,
    ThreadStopService,
    DispatchSweepService,
    CiWatchService,
    CiWatchIntakeService,
    CiWatchSweepService,
    QueueMetricsService,
    BudgetGrantService,
    repositoryProvider(BudgetPauseRepository),
    repositoryProvider(SlackMessageRepository),
    repositoryProvider(ThreadPlanRepository),
    repositoryProvider(ThreadRepository),
    repositoryProvider(ThreadStopRepository),
    repositoryProvider(PullRequestHeadRepository),
    repositoryProvider(RunRepository),
    repositoryProvider(ThreadMessageRepository),
    repositoryProvider(RunQueueRepository),
    repositoryProvider(RunNoticeRepository),
    repositoryProvider(ThreadWakeupRepository),
    repositoryProvider(CiWatchRepository),
    repositoryProvider(EnabledRepositoryRepository),
    repositoryProvider(IdentityRepository),
    repositoryProvider(TriggerRefusalRepository),
    repositoryProvider(UserProfileRepository),
  ],
  exports: [DispatchSweepService, CiWatchSweepService],
})
export class DispatchModule {
  static register(config: DispatchConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: DispatchModule,
      providers: [
        { provide: DISPATCH_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
        {
          provide: REPLY_PORT,
          useFactory: (slack: SlackMessageRepository) => replyPort(config, slack),
          inject: [SlackMessageRepository],
        },
        {
          provide: PULL_REQUEST_STATE,
          useFactory: () => githubPullRequestState(config.integrations),
        },
        {
          provide: TriggerAccessPolicy,
          useFactory: (identities: IdentityRepository) =>
            triggerAccessPolicy(config, identities, clock),
          inject: [IdentityRepository],
        },
      ],
    };
  }
}
