import type { SandboxHandle } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { Body, Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ActionTokenGuard } from '../http/action-token.guard.js';
import { ThreadActionsService } from '../services/thread-actions.service.js';

const actionBody = z.strictObject({
  author: z
    .string()
    .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'letters, digits and . _ @ - only, at most 64'),
  kind: z.enum(['message', 'command']).default('message'),
  text: z.string().trim().min(1).max(20_000),
});

const chatBody = z.strictObject({
  author: actionBody.shape.author,
  text: z.string().trim().min(1).max(20_000),
});

function parseBody<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const body = schema.safeParse(raw);
  if (body.success) return body.data;
  const problems = body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  throw new AppError('BAD_REQUEST', `invalid ${what}: ${problems.join('; ')}`);
}

function parseThreadId(id: string): string {
  const threadId = z.uuid().safeParse(id);
  if (!threadId.success) throw new AppError('BAD_REQUEST', `invalid thread id: ${id}`);
  return threadId.data;
}

/**
 * Dashboard actions: a person writes into a thread or runs a command in it (human takeover), asks
 * the read-only chat agent about its code, or asks for a fresh sandbox (the old one is kept).
 */
@Controller('api')
@UseGuards(ActionTokenGuard)
export class ThreadActionsController {
  constructor(@Inject(ThreadActionsService) private readonly actions: ThreadActionsService) {}

  @Post('threads/:id/actions')
  @HttpCode(202)
  act(@Param('id') id: string, @Body() raw: unknown): Promise<{ triggerId: string }> {
    return this.actions.act(parseThreadId(id), parseBody(actionBody, raw, 'action'));
  }

  @Post('threads/:id/chat')
  @HttpCode(200)
  chat(
    @Param('id') id: string,
    @Body() raw: unknown,
  ): Promise<{ answer: string; toolCalls: number }> {
    return this.actions.chat(parseThreadId(id), parseBody(chatBody, raw, 'question'));
  }

  @Post('threads/:id/sandbox/recreate')
  @HttpCode(200)
  recreateSandbox(@Param('id') id: string): Promise<SandboxHandle> {
    return this.actions.recreateSandbox(parseThreadId(id));
  }
}
