import { CLOCK, type Clock } from '@caravel/config';
import { CiWatchRepository, type CiWatchRow } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { BUS, LeasedSweep, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { CiWatchService } from './ci-watch.service.js';
import { PULL_REQUEST_STATE, type PullRequestStatePort } from './pull-request-state.port.js';

/** What one sweep did; null when another replica held the lease. */
export interface CiSweepReport {
  /** Settling greens looked at again. */
  settled: number;
  /** Watched pull requests read from the code host (merge conflicts, closes, pushes). */
  polled: number;
  /** Pull requests that could not be read (logged). */
  unreadable: number;
}

/** Watches looked at per sweep, each way (the oldest first: every watch gets its turn). */
const BATCH = 50;

const SWEEP = {
  name: 'CI watch sweep',
  logContext: 'CiWatchSweep',
  leaseKey: 'dispatch.ci-watch-sweep',
};

/**
 * CI babysitting's polling, on one replica at a time (a bus lease), every
 * `DISPATCH_CI_SWEEP_INTERVAL_MS`: a green that has been settling is evaluated again once due
 * (no delivery comes when nothing changes), and every active watch's pull request is read from
 * the code host, since no webhook says that a pull request now conflicts with its base; a close
 * or a person's push found there ends the watch as a delivery would.
 */
@Injectable()
export class CiWatchSweepService extends LeasedSweep<CiSweepReport> {
  constructor(
    @Inject(CiWatchRepository) private readonly watches: CiWatchRepository,
    @Inject(CiWatchService) private readonly evaluations: CiWatchService,
    @Inject(PULL_REQUEST_STATE) private readonly pulls: PullRequestStatePort,
    @Inject(BUS) bus: Bus,
    @Inject(RUNTIME) runtime: PlatformRuntime,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DISPATCH_CONFIG) config: DispatchConfig,
  ) {
    super({ ...SWEEP, intervalMs: config.ciWatch.sweepIntervalMs }, bus, runtime);
  }

  /** Settling greens due again, then every active watch's pull request as the code host has it. */
  protected async sweepOnce(): Promise<CiSweepReport> {
    const due = await this.watches.due(this.clock.now(), BATCH);
    for (const watch of due) await this.evaluations.evaluate(watch.id);
    const active = await this.watches.listActive(BATCH);
    let polled = 0;
    for (const watch of active) polled += (await this.poll(watch)) ? 1 : 0;
    return { settled: due.length, polled, unreadable: active.length - polled };
  }

  /** Reads the pull request and evaluates its watch with what GitHub says; false when unread. */
  private async poll(watch: CiWatchRow): Promise<boolean> {
    const repository = { owner: watch.repositoryOwner, name: watch.repositoryName };
    try {
      const pull = await this.pulls.read(repository, watch.pullRequest);
      if (!pull) {
        this.log.debug(`${watch.pullRequestKey}: cannot be read here (no GitHub App for it)`);
        return false;
      }
      await this.evaluations.evaluate(watch.id, pull);
      return true;
    } catch (error) {
      this.log.warn(`${watch.pullRequestKey}: not polled (${String(error)})`);
      return false;
    }
  }
}
