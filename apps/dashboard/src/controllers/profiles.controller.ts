import { parseModelSpec } from '@caravel/agent';
import { UserProfileRepository, type UserProfileRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Body, Controller, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { ActionTokenGuard } from '../http/action-token.guard.js';

const identity = z.string().regex(/^[a-z]+:[^\s]{1,128}$/, 'source:id, e.g. slack:U123');
const profileBody = z.strictObject({
  model: z.string().min(1).nullable().default(null),
  reasoningEffort: z.string().min(1).nullable().default(null),
});

/**
 * A person's own model choice, used between the thread's and the team's (`PUT` replaces it; null
 * fields fall back to the team default). An unknown model is refused here, not at the next run.
 */
@Controller('api')
@UseGuards(ActionTokenGuard)
export class ProfilesController {
  constructor(@Inject(UserProfileRepository) private readonly profiles: UserProfileRepository) {}

  @Put('profiles/:identity')
  async save(@Param('identity') raw: string, @Body() body: unknown): Promise<UserProfileRow> {
    const who = identity.safeParse(raw);
    if (!who.success) throw new AppError('BAD_REQUEST', `invalid identity '${raw}': source:id`);
    const profile = profileBody.safeParse(body);
    if (!profile.success) {
      const problems = profile.error.issues.map(
        (i) => `${i.path.join('.') || 'body'}: ${i.message}`,
      );
      throw new AppError('BAD_REQUEST', `invalid profile: ${problems.join('; ')}`);
    }
    if (profile.data.model !== null) parseModelSpec(profile.data.model);
    return this.profiles.save({ identity: who.data, ...profile.data });
  }
}
