import type { SandboxHandle } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard, CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { ThreadActionsService } from '../services/thread-actions.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Who acts: a signed-in person is always themself (their GitHub login), whatever the body says;
 * the machine token names the person it acts for (`caravel attach --as`).
 */
function authorOf(caller: Caller | null, claimed: string | undefined): string {
  if (caller?.kind === 'person') return caller.session.login;
  if (!claimed) throw new AppError('BAD_REQUEST', 'invalid action: author: required with a token');
  return claimed;
}

/**
 * Dashboard actions: a person writes into a thread or runs a command in it (human takeover), stops
 * its work, asks the read-only chat agent about its code, or asks for a fresh sandbox (the old one
 * is kept). Only in a thread the caller may see: another is a 404, as a missing one.
 */
@Controller('api')
@UseGuards(ActionGuard)
export class ThreadActionsController {
  constructor(
    @Inject(ThreadActionsService) private readonly actions: ThreadActionsService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @Post('threads/:id/actions')
  @HttpCode(202)
  async act(
    @Param() params: unknown,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<{ triggerId: string }> {
    const { id } = parseInput(ROUTES.threadAction.params, params, 'thread id');
    const body = parseInput(ROUTES.threadAction.body, raw, 'action');
    await this.visible.thread(caller, id);
    return this.actions.act(id, { ...body, author: authorOf(caller, body.author) });
  }

  @Post('threads/:id/stop')
  @HttpCode(202)
  async stop(
    @Param() params: unknown,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<{ requestId: string }> {
    const { id } = parseInput(ROUTES.threadStop.params, params, 'thread id');
    const body = parseInput(ROUTES.threadStop.body, raw ?? {}, 'stop');
    await this.visible.thread(caller, id);
    return this.actions.stop(id, authorOf(caller, body.author));
  }

  @Post('threads/:id/chat')
  @HttpCode(200)
  async chat(
    @Param() params: unknown,
    @Body() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<{ answer: string; toolCalls: number }> {
    const { id } = parseInput(ROUTES.threadChat.params, params, 'thread id');
    const body = parseInput(ROUTES.threadChat.body, raw, 'question');
    await this.visible.thread(caller, id);
    return this.actions.chat(id, { text: body.text, author: authorOf(caller, body.author) });
  }

  @Post('threads/:id/sandbox/recreate')
  @HttpCode(200)
  async recreateSandbox(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<SandboxHandle> {
    const { id } = parseInput(ROUTES.recreateSandbox.params, params, 'thread id');
    await this.visible.thread(caller, id);
    return this.actions.recreateSandbox(id);
  }
}
