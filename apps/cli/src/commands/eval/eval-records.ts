import type { EnvSource } from '@caravel/config';
import {
  EvalProposalRepository,
  EvalReviewCaseRepository,
  EvalRunRepository,
  ReviewStyleRepository,
  openDatabase,
  redactUrl,
  type Database,
} from '@caravel/db';
import {
  evalRunOfRecords,
  recordedAttemptsOf,
  type AttemptLedger,
  type EvalAttempt,
  type EvalRun,
} from '@caravel/evals';
import { AppError } from '@caravel/errors';
import { resolve } from 'node:path';

/**
 * Where eval runs are recorded: `--database-url`, else CARAVEL_DATABASE_URL or DATABASE_URL, else
 * the embedded database of CARAVEL_DATA_DIR (`<dir>/pgdata`, as `caravel start` keeps it); none
 * when nothing is configured (the run's files are the record then).
 */
export function evalDatabaseUrl(option: string | undefined, env: EnvSource): string | undefined {
  const url = option ?? env['CARAVEL_DATABASE_URL'] ?? env['DATABASE_URL'];
  if (url) return url;
  const dataDir = env['CARAVEL_DATA_DIR'];
  return dataDir ? `pglite:${resolve(dataDir, 'pgdata')}` : undefined;
}

/** The eval runs and proposals of a database, opened (and migrated) for one command. */
export class EvalRecords {
  private constructor(
    private readonly database: Database,
    readonly runs: EvalRunRepository,
    readonly proposals: EvalProposalRepository,
    readonly reviewCases: EvalReviewCaseRepository,
    /** The learned review styles (`eval gate-style` saves an accepted edit there). */
    readonly styles: ReviewStyleRepository,
    /** Where, for people (a URL's password hidden). */
    readonly where: string,
  ) {}

  static async open(url: string): Promise<EvalRecords> {
    const database = await openDatabase({ url });
    return new EvalRecords(
      database,
      new EvalRunRepository(database.db),
      new EvalProposalRepository(database.db),
      new EvalReviewCaseRepository(database.db),
      new ReviewStyleRepository(database.db),
      redactUrl(url),
    );
  }

  /** A recorded run as its record, or a NOT_FOUND naming the id. */
  async evalRun(runId: string): Promise<EvalRun> {
    const run = await this.runs.find(runId);
    if (!run) throw new AppError('NOT_FOUND', `no eval run ${runId} in ${this.where}`);
    return evalRunOfRecords(run, await this.runs.attemptsOf(runId));
  }

  close(): Promise<void> {
    return this.database.close();
  }
}

/** What a run is recorded with, beside its ledger's identity. */
export interface RunDetails {
  readonly settings: Readonly<Record<string, string>>;
  readonly attemptsPerTask: number;
  readonly outDir: string;
  /** The scheduled suite and night that started it. */
  readonly schedule?: { readonly id: string; readonly slot: Date };
}

/**
 * Records one `eval run` as it goes: the run and the attempts its ledger already holds when it
 * starts, each attempt when it is finished, and everything again at the end (an attempt is kept
 * once), so a write that failed or a kill between the ledger and the database loses nothing.
 */
export class RunRecorder {
  private pending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly runs: EvalRunRepository,
    private readonly runId: string,
    private readonly warn: (line: string) => void,
  ) {}

  static async start(
    runs: EvalRunRepository,
    ledger: AttemptLedger,
    details: RunDetails,
    warn: (line: string) => void,
  ): Promise<RunRecorder> {
    await runs.start({
      id: ledger.runId,
      suite: ledger.suite,
      config: ledger.config,
      model: ledger.model,
      createdAt: new Date(ledger.createdAt),
      ...details,
    });
    await runs.recordAttempts(ledger.runId, recordedAttemptsOf(ledger.finished));
    return new RunRecorder(runs, ledger.runId, warn);
  }

  /** Records a finished attempt after those before it; a failure is a warning (see `finish`). */
  record(taskId: string, result: EvalAttempt): void {
    this.pending = this.pending
      .then(() => this.runs.recordAttempts(this.runId, recordedAttemptsOf([{ taskId, result }])))
      .then(
        () => undefined,
        (error: unknown) =>
          this.warn(
            `warning: attempt ${result.attempt} of ${taskId} not recorded yet (${(error as Error).message}); it is at the end`,
          ),
      );
  }

  /** Waits for the recordings in flight (a stopped run keeps what it finished). */
  settle(): Promise<void> {
    return this.pending;
  }

  /** Records every finished attempt of the ledger that is not yet, and the run as finished. */
  async finish(ledger: AttemptLedger): Promise<void> {
    await this.pending;
    await this.runs.recordAttempts(this.runId, recordedAttemptsOf(ledger.finished));
    await this.runs.finish(this.runId);
  }
}
