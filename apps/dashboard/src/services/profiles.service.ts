import { parseModelSpec } from '@caravel/agent';
import { UserProfileRepository, type UserProfileRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';

const identity = z.string().regex(/^[a-z]+:[^\s]{1,128}$/, 'source:id, e.g. slack:U123');

/** What `PUT /api/profiles/:identity` accepts; an absent field takes its default. */
const profileBody = z.strictObject({
  model: z.string().min(1).nullable().default(null),
  reasoningEffort: z.string().min(1).nullable().default(null),
  /** Pull requests open as drafts (default) or ready for review. */
  draftPullRequests: z.boolean().default(true),
  /** "Always create PRs" for this person's runs; null follows the team's setting. */
  alwaysCreatePullRequests: z.boolean().nullable().default(null),
});

/**
 * A person's own settings: their model (used between the thread's and the team's) and how their
 * pull requests are made. A save replaces the profile; bad input is refused with a coded error
 * naming every problem, and an unknown model is refused here, not at the person's next run.
 */
@Injectable()
export class ProfilesService {
  constructor(@Inject(UserProfileRepository) private readonly profiles: UserProfileRepository) {}

  async save(rawIdentity: string, body: unknown): Promise<UserProfileRow> {
    const who = identity.safeParse(rawIdentity);
    if (!who.success) {
      throw new AppError('BAD_REQUEST', `invalid identity '${rawIdentity}': source:id`);
    }
    const profile = profileBody.safeParse(body);
    if (!profile.success) {
      const problems = profile.error.issues.map(
        (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
      );
      throw new AppError('BAD_REQUEST', `invalid profile: ${problems.join('; ')}`);
    }
    if (profile.data.model !== null) parseModelSpec(profile.data.model);
    return this.profiles.save({ identity: who.data, ...profile.data });
  }
}
