import type { DeadLetterSelection } from '@caravel/messaging';
import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard } from '../auth/guards.js';
import {
  DeadLettersService,
  type DeadLetterReplayView,
  type DeadLetterView,
} from '../services/dead-letters.service.js';

/** Only the selection's own keys, none undefined. */
function selection(parsed: {
  ids?: string[] | undefined;
  consumer?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}): DeadLetterSelection {
  return {
    ...(parsed.ids ? { ids: parsed.ids } : {}),
    ...(parsed.consumer ? { consumer: parsed.consumer } : {}),
    ...(parsed.since ? { since: parsed.since } : {}),
    ...(parsed.until ? { until: parsed.until } : {}),
  };
}

/**
 * The messages the platform gave up on, for admins and the machine token (a dead letter holds the
 * message's payload): list them, and hand them back to their consumers once the cause is fixed.
 */
@Controller('api/dead-letters')
@UseGuards(AdminGuard)
export class DeadLettersController {
  constructor(@Inject(DeadLettersService) private readonly deadLetters: DeadLettersService) {}

  @Get()
  async list(@Query() raw: unknown): Promise<{ deadLetters: DeadLetterView[] }> {
    const query = parseInput(ROUTES.listDeadLetters.query, raw, 'query');
    return { deadLetters: await this.deadLetters.list(selection(query)) };
  }

  @Post('replay')
  @HttpCode(200)
  async replay(@Body() raw: unknown): Promise<{ replays: DeadLetterReplayView[] }> {
    const body = parseInput(ROUTES.replayDeadLetters.body, raw, 'replay');
    return { replays: await this.deadLetters.replay(selection(body)) };
  }
}
