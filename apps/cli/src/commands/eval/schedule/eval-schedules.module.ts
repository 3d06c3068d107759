import { CLOCK, systemClock, type Clock, type EnvSource } from '@caravel/config';
import { EvalReviewCaseRepository, EvalRunRepository, EvalScheduleRepository } from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import {
  EVAL_SCHEDULE_SETTINGS,
  EvalScheduleSweep,
  SCHEDULED_SUITE_RUNNER,
} from './eval-schedule.sweep.js';
import type { EvalSchedulesConfig } from './eval-scheduler.config.js';
import { suiteRunner } from './scheduled-suite.runner.js';

/** The embedded host's scheduled eval suites: their sweep and the runner it starts nights with. */
@Module({})
export class EvalSchedulesModule {
  static register(
    settings: EvalSchedulesConfig,
    env: EnvSource,
    clock: Clock = systemClock,
  ): DynamicModule {
    const logger = new Logger('EvalSchedules');
    return {
      module: EvalSchedulesModule,
      providers: [
        { provide: EVAL_SCHEDULE_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: clock },
        repositoryProvider(EvalScheduleRepository),
        repositoryProvider(EvalRunRepository),
        repositoryProvider(EvalReviewCaseRepository),
        {
          provide: SCHEDULED_SUITE_RUNNER,
          inject: [EvalRunRepository, EvalReviewCaseRepository],
          useFactory: (runs: EvalRunRepository, reviewCases: EvalReviewCaseRepository) =>
            suiteRunner({
              runs,
              reviewCases,
              env,
              concurrency: settings.concurrency,
              write: (line) => logger.log(line),
            }),
        },
        EvalScheduleSweep,
      ],
    };
  }
}
