import type { EnvSource } from '@caravel/config';
import type { EvalReviewCaseRepository, EvalRunRepository, EvalScheduleRow } from '@caravel/db';

/** A night of a scheduled suite: when it is for, its run's id and where its files go. */
export interface ScheduledNight {
  readonly slot: Date;
  readonly runId: string;
  readonly out: string;
  readonly signal: AbortSignal;
}

/** Runs one night of a scheduled suite to the end (resuming what a crash left), recording it. */
export interface ScheduledSuiteRunner {
  run(schedule: EvalScheduleRow, night: ScheduledNight): Promise<void>;
}

/** What the real runner records into and runs with. */
export interface SuiteRunnerDeps {
  readonly runs: EvalRunRepository;
  readonly reviewCases: EvalReviewCaseRepository;
  /** The host's environment (credentials, PATH, sandbox settings); the schedule's laid over it. */
  readonly env: EnvSource;
  readonly concurrency: number;
  readonly write: (line: string) => void;
}

/**
 * The real runner: a Harbor suite through `eval run`'s machinery (`runEvalSuite`: attempts
 * through `caravel run`'s path, graded by the tasks' tests, resumed from the ledger in the
 * night's folder), a review set through `review-eval`'s (`runReviewEval`, resumed from the cases
 * recorded under the night's run id). The code is loaded when a night first runs.
 */
export function suiteRunner(deps: SuiteRunnerDeps): ScheduledSuiteRunner {
  return {
    async run(schedule, night) {
      const env = { ...deps.env, ...schedule.settings };
      const common = {
        runId: night.runId,
        out: night.out,
        concurrency: deps.concurrency,
        write: deps.write,
        signal: night.signal,
        schedule: { id: schedule.id, slot: night.slot },
      };
      if (schedule.kind === 'review') {
        const { readReviewSet } = await import('../../review-eval/review-set-files.js');
        const { runReviewEval } = await import('../../review-eval/review-eval.service.js');
        const report = await runReviewEval({
          ...common,
          set: await readReviewSet(schedule.source),
          model: schedule.model,
          modelOrigin: `the schedule ${schedule.name}`,
          config: schedule.config,
          tolerance: 0,
          minSeverity: 'low',
          sandbox: 'bwrap',
          env,
          records: deps,
        });
        if (report.stopped) throw night.signal.reason ?? new Error('stopped');
        return;
      }
      const { readSuite } = await import('../eval-suite.js');
      const { runEvalSuite } = await import('../eval-run.service.js');
      await runEvalSuite({
        ...common,
        suite: await readSuite(schedule.source),
        config: { name: schedule.config, model: schedule.model, env: schedule.settings },
        attempts: schedule.attempts,
        env: deps.env,
        records: deps.runs,
      });
    },
  };
}
