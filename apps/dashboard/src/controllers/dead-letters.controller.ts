import type { DeadLetterSelection } from '@caravel/messaging';
import { AppError } from '@caravel/errors';
import { Body, Controller, Get, HttpCode, Inject, Post, Query, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ActionTokenGuard } from '../http/action-token.guard.js';
import {
  DeadLettersService,
  type DeadLetterReplayView,
  type DeadLetterView,
} from '../services/dead-letters.service.js';

const when = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const durable = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a durable consumer name');

const listQuery = z.strictObject({
  consumer: durable.optional(),
  since: when.optional(),
  until: when.optional(),
});

const replayBody = z
  .strictObject({
    ids: z.array(z.string().min(1).max(300)).min(1).max(1000).optional(),
    consumer: durable.optional(),
    since: when.optional(),
    until: when.optional(),
    all: z.literal(true).optional(),
  })
  .refine(
    (body) => body.all === true || Object.keys(body).some((key) => key !== 'all'),
    'name what to replay: ids, consumer, since or until (or all: true for every dead letter)',
  );

function parse<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`);
  throw new AppError('BAD_REQUEST', `invalid ${what}: ${problems.join('; ')}`);
}

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
 * The messages the platform gave up on, behind the dashboard token (a dead letter holds the
 * message's payload): list them, and hand them back to their consumers once the cause is fixed.
 */
@Controller('api/dead-letters')
@UseGuards(ActionTokenGuard)
export class DeadLettersController {
  constructor(@Inject(DeadLettersService) private readonly deadLetters: DeadLettersService) {}

  @Get()
  async list(@Query() raw: unknown): Promise<{ deadLetters: DeadLetterView[] }> {
    return { deadLetters: await this.deadLetters.list(selection(parse(listQuery, raw, 'query'))) };
  }

  @Post('replay')
  @HttpCode(200)
  async replay(@Body() raw: unknown): Promise<{ replays: DeadLetterReplayView[] }> {
    return { replays: await this.deadLetters.replay(selection(parse(replayBody, raw, 'replay'))) };
  }
}
