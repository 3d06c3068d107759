import { AppError } from '@caravel/errors';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import type { ReplaySummary, ReplayView } from '../services/replay-view.js';
import { ReplaysService, type ReplayRequested } from '../services/replays.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/** A signed-in person replays as themself; the machine token names whom it acts for. */
function requesterOf(caller: Caller | null, claimed: string | undefined): string {
  if (caller?.kind === 'person') return caller.session.login;
  if (!claimed) throw new AppError('BAD_REQUEST', 'invalid replay: author: required with a token');
  return claimed;
}

/**
 * Replays of a thread's finished runs: ask for one (an action), read them back (a read); only in a
 * thread the caller may see (another is a 404).
 */
@Controller('api')
export class ReplaysController {
  constructor(
    @Inject(ReplaysService) private readonly replays: ReplaysService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @Post('threads/:id/replays')
  @HttpCode(202)
  @UseGuards(ActionGuard)
  async request(
    @Param() params: unknown,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReplayRequested> {
    const { id } = parseInput(ROUTES.requestReplay.params, params, 'thread id');
    const body = parseInput(ROUTES.requestReplay.body, raw ?? {}, 'replay');
    await this.visible.thread(caller, id);
    return this.replays.request(id, {
      runId: body.runId,
      author: requesterOf(caller, body.author),
    });
  }

  @Get('threads/:id/replays')
  @UseGuards(ReadGuard)
  async list(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReplaySummary[]> {
    const { id } = parseInput(ROUTES.listReplays.params, params, 'thread id');
    await this.visible.thread(caller, id);
    return this.replays.list(id);
  }

  @Get('threads/:id/replays/:replayId')
  @UseGuards(ReadGuard)
  async get(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<ReplayView> {
    const { id, replayId } = parseInput(ROUTES.replay.params, params, 'replay');
    await this.visible.thread(caller, id);
    return this.replays.get(id, replayId);
  }
}
