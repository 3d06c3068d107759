import { parseRepository } from '@caravel/integrations';
import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { OpsService, type OpsView } from '../services/ops.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Ops and cost over a window of days (docs/dashboard.md#ops-and-cost). A member checked against
 * GitHub sees only the waiting runs of threads they may see, the rows of repositories they may
 * see, and no failed run's summary (it may come from any repository); the totals stay whole.
 */
@Controller('api/ops')
@UseGuards(ReadGuard)
export class OpsController {
  constructor(
    @Inject(OpsService) private readonly ops: OpsService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @Get()
  async summary(@Query() query: unknown, @CurrentCaller() caller: Caller | null): Promise<OpsView> {
    const view = await this.ops.summary(parseInput(ROUTES.ops.query, query, 'query'));
    if (this.visible.seesAll(caller)) return view;
    return {
      ...view,
      queue: { ...view.queue, runs: await this.visible.ofVisibleThreads(caller, view.queue.runs) },
      byRepository: await this.visible.ofVisibleRepositories(
        caller,
        view.byRepository,
        ({ key }) => (key.includes('/') ? parseRepository(key) : null),
      ),
      failures: view.failures.map((failure) => ({ ...failure, latestSummary: '' })),
    };
  }
}
