import type { RepositoryRef } from '@caravel/contracts';
import {
  RepositoryInstructionsRepository,
  TeamDefaultsRepository,
  type TeamDefaultsRow,
  type UserProfileRow,
} from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';

/** A repository's instructions as admins kept them in the dashboard. */
export interface DashboardRepositoryInstructions {
  /** `owner/name`. */
  repository: string;
  text: string;
}

/**
 * What admins keep in the dashboard for every run, read fresh at each run's start: the team's
 * defaults (between the requester's profile and the environment) and the instructions of the
 * run's repository.
 */
@Injectable()
export class TeamSettings {
  constructor(
    @Inject(TeamDefaultsRepository) private readonly defaultsStore: TeamDefaultsRepository,
    @Inject(RepositoryInstructionsRepository)
    private readonly instructionsStore: RepositoryInstructionsRepository,
  ) {}

  /** The saved team defaults; null when no admin saved any (the environment's apply). */
  defaults(): Promise<TeamDefaultsRow | null> {
    return this.defaultsStore.get();
  }

  /** The run's repository's instructions, when it has a repository and they have some. */
  async instructionsFor(
    repository: RepositoryRef | undefined,
  ): Promise<DashboardRepositoryInstructions | undefined> {
    if (!repository) return undefined;
    const name = `${repository.owner}/${repository.name}`;
    const saved = await this.instructionsStore.find(name);
    return saved ? { repository: name, text: saved.instructions } : undefined;
  }
}

/**
 * How a run's pull requests are made: the requester's profile, else the team's saved defaults,
 * else the environment's (`RUN_ALWAYS_CREATE_PRS`; drafts).
 */
export function pullRequestChoices(
  profile: Pick<UserProfileRow, 'alwaysCreatePullRequests' | 'draftPullRequests'> | null,
  team: Pick<TeamDefaultsRow, 'alwaysCreatePullRequests' | 'draftPullRequests'> | null,
  env: { alwaysCreatePrs: boolean },
): { alwaysCreatePrs: boolean; drafts: boolean } {
  return {
    alwaysCreatePrs:
      profile?.alwaysCreatePullRequests ?? team?.alwaysCreatePullRequests ?? env.alwaysCreatePrs,
    drafts: profile?.draftPullRequests ?? team?.draftPullRequests ?? true,
  };
}
