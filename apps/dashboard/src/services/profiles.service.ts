import { parseModelSpec } from '@caravel/agent';
import { UserProfileRepository, type UserProfileRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ROUTES } from '../api/routes.js';
import type { Caller } from '../auth/session.types.js';

export type ProfileSave = z.output<typeof ROUTES.saveProfile.body>;

/** A profile as the API shows it: the saved one, or the defaults of a person who saved none. */
export type ProfileView = Omit<UserProfileRow, 'updatedAt'> & { updatedAt: Date | null };

/** The identity a signed-in person has in threads. */
export function identityOf(login: string): string {
  return `github:${login}`;
}

/**
 * Refuses a person who is no admin reading or changing another person's settings (`what`, say
 * "change their own profile"). Admins, the machine token and the open reads of an install with
 * neither sign-in nor a token pass.
 */
export function mayTouchOwn(caller: Caller | null, identity: string, what: string): void {
  if (!caller || caller.kind !== 'person' || caller.session.role === 'admin') return;
  const own = identityOf(caller.session.login);
  if (identity === own) return;
  throw new AppError(
    'FORBIDDEN',
    `${caller.session.login} may only ${what} (${own}); another person's are for admins`,
  );
}

/**
 * A person's own settings: their model (used between the thread's and the team's), their default
 * repository, their subagents' and fallback models, how their pull requests are made and whether
 * CI failures on them are fixed. A save replaces the profile. A signed-in
 * person reads and saves only their own (admins and the machine token anyone's); an unknown model is
 * refused here, not at the person's next run.
 */
@Injectable()
export class ProfilesService {
  constructor(@Inject(UserProfileRepository) private readonly profiles: UserProfileRepository) {}

  async get(caller: Caller | null, identity: string): Promise<ProfileView> {
    mayTouchOwn(caller, identity, 'read their own profile');
    return (
      (await this.profiles.get(identity)) ?? {
        identity,
        model: null,
        reasoningEffort: null,
        defaultRepository: null,
        draftPullRequests: true,
        alwaysCreatePullRequests: null,
        fallbackModel: null,
        autofixCi: null,
        subagentModel: null,
        updatedAt: null,
      }
    );
  }

  async save(caller: Caller, identity: string, profile: ProfileSave): Promise<UserProfileRow> {
    mayTouchOwn(caller, identity, 'change their own profile');
    if (profile.model !== null) parseModelSpec(profile.model);
    if (profile.fallbackModel !== null) parseModelSpec(profile.fallbackModel);
    if (profile.subagentModel !== null) parseModelSpec(profile.subagentModel);
    return this.profiles.save({ identity, ...profile });
  }
}
