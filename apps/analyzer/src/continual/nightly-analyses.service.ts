import { CLOCK, type Clock } from '@caravel/config';
import {
  AnalyzeReviewStyleV1,
  CARAVEL_NAMESPACE,
  reviewStyleThreadId,
  uuidV5,
} from '@caravel/contracts';
import { ReviewStyleRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { BUS, LeasedSweep, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';
import { ANALYZER_CONFIG, type AnalyzerConfig } from '../analyzer.config.js';
import { nextNightlyRun } from '../schedule/nightly-slot.js';

const SWEEP_LEASE = 'analyzer.nightly';
/** How long a night's claim is kept: past the next slot, so a night is never claimed twice. */
const NIGHT_CLAIM_MS = 36 * 3_600_000;
const DAY_MS = 86_400_000;

/** The latest slot of `repository` at or before `now`. */
export function latestNightlySlot(repository: string, now: Date): Date {
  return nextNightlyRun(repository, new Date(now.getTime() - DAY_MS));
}

const NIGHTLY = { name: 'nightly analyses', logContext: 'NightlyAnalyses', leaseKey: SWEEP_LEASE };

/**
 * The continual mode's schedule: every `ANALYZER_NIGHTLY_CHECK_MS`, on one replica (a bus
 * lease), each bootstrapped repository whose nightly slot (`nightly-slot.ts`) has come since its
 * first version gets one continual request for that night. The night is claimed on the bus (a
 * lease per repository and slot, kept for 36 hours and never released) before the request is
 * published, so a restart or a second replica does not ask twice; a slot missed while the
 * service was down is caught up when it starts.
 */
@Injectable()
export class NightlyAnalysesService extends LeasedSweep<string[]> {
  constructor(
    @Inject(ReviewStyleRepository) private readonly styles: ReviewStyleRepository,
    @Inject(BUS) bus: Bus,
    @Inject(RUNTIME) runtime: PlatformRuntime,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ANALYZER_CONFIG) config: AnalyzerConfig,
  ) {
    super({ ...NIGHTLY, intervalMs: config.analysis.nightlyCheckMs }, bus, runtime);
  }

  /** The repositories asked for (a sweep answers null when another replica checked). */
  protected async sweepOnce(): Promise<string[]> {
    const now = this.clock.now();
    const asked: string[] = [];
    for (const repository of await this.styles.repositories()) {
      if (await this.askIfDue(repository, now)) asked.push(repository);
    }
    return asked;
  }

  private async askIfDue(repository: string, now: Date): Promise<boolean> {
    const slot = latestNightlySlot(repository, now);
    const [first] = await this.styles.history(repository);
    if (!first || slot <= first.createdAt) return false;
    const night = `${SWEEP_LEASE}:${repository}@${slot.toISOString()}`;
    if (!(await this.bus.leases.acquire(night, this.runtime.name, NIGHT_CLAIM_MS))) return false;
    const [owner = '', name = ''] = repository.split('/');
    await this.bus.publish(
      AnalyzeReviewStyleV1,
      AnalyzeReviewStyleV1.create(
        {
          threadId: reviewStyleThreadId({ owner, repo: name }),
          repository: { owner, name },
          mode: 'continual',
          requestedBy: 'nightly',
          requestId: uuidV5(night, CARAVEL_NAMESPACE),
        },
        { source: 'analyzer' },
      ),
    );
    return true;
  }
}
