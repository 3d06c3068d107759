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

/** Dashboard actions: a person writes into a thread or runs a command in it (human takeover). */
@Controller('api')
@UseGuards(ActionTokenGuard)
export class ThreadActionsController {
  constructor(@Inject(ThreadActionsService) private readonly actions: ThreadActionsService) {}

  @Post('threads/:id/actions')
  @HttpCode(202)
  act(@Param('id') id: string, @Body() raw: unknown): Promise<{ triggerId: string }> {
    const threadId = z.uuid().safeParse(id);
    if (!threadId.success) throw new AppError('BAD_REQUEST', `invalid thread id: ${id}`);
    const body = actionBody.safeParse(raw);
    if (!body.success) {
      const problems = body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
      throw new AppError('BAD_REQUEST', `invalid action: ${problems.join('; ')}`);
    }
    return this.actions.act(threadId.data, body.data);
  }
}
