import type { UserProfileRepository, UserProfileSave } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import type { Caller, Role } from '../auth/session.types.js';
import { ProfilesService } from './profiles.service.js';

const machine: Caller = { kind: 'machine' };
function person(login: string, role: Role = 'member'): Caller {
  return {
    kind: 'person',
    session: { login, githubId: 1, name: null, avatarUrl: null, role, expiresAt: 0 },
  };
}
const body = (raw: unknown) => parseInput(ROUTES.saveProfile.body, raw, 'profile');

/** A strict double: only `save` may be called, and it echoes what it was given. */
function recordingProfiles(): { saved: UserProfileSave[]; repository: UserProfileRepository } {
  const saved: UserProfileSave[] = [];
  const repository = strictMock<UserProfileRepository>(
    {
      save: (profile: UserProfileSave) => {
        saved.push(profile);
        return Promise.resolve(
          factory.userProfile({
            identity: profile.identity,
            model: profile.model,
            reasoningEffort: profile.reasoningEffort,
            draftPullRequests: profile.draftPullRequests ?? true,
            alwaysCreatePullRequests: profile.alwaysCreatePullRequests ?? null,
            defaultRepository: profile.defaultRepository ?? null,
            autofixCi: profile.autofixCi ?? null,
          }),
        );
      },
    },
    'profiles',
  );
  return { saved, repository };
}

async function refusal(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('ProfilesService', () => {
  it("saves draft pull requests and the team's policies when the body does not say", async () => {
    const { saved, repository } = recordingProfiles();

    await new ProfilesService(repository).save(machine, 'slack:U1', body({}));

    expect(saved).toEqual([
      {
        identity: 'slack:U1',
        model: null,
        reasoningEffort: null,
        defaultRepository: null,
        draftPullRequests: true,
        alwaysCreatePullRequests: null,
        fallbackModel: null,
        autofixCi: null,
        subagentModel: null,
      },
    ]);
  });

  it("keeps a person's auto-fix CI choice, and shows the team's default to one who saved none", async () => {
    const { saved, repository } = recordingProfiles();

    const row = await new ProfilesService(repository).save(
      machine,
      'slack:U1',
      body({ autofixCi: false }),
    );

    expect([saved[0]?.autofixCi, row.autofixCi]).toEqual([false, false]);
    const unsaved = strictMock<UserProfileRepository>(
      { get: () => Promise.resolve(null) },
      'profiles',
    );
    expect(await new ProfilesService(unsaved).get(null, 'slack:U2')).toMatchObject({
      identity: 'slack:U2',
      autofixCi: null,
      updatedAt: null,
    });
  });

  it("keeps a person's fallback and subagent models and refuses one that is not a model", async () => {
    const { saved, repository } = recordingProfiles();
    const profiles = new ProfilesService(repository);
    await profiles.save(
      machine,
      'slack:U1',
      body({ fallbackModel: 'openai:gpt-5-mini', subagentModel: 'openai:gpt-5-nano' }),
    );
    expect(saved.at(-1)).toMatchObject({
      fallbackModel: 'openai:gpt-5-mini',
      subagentModel: 'openai:gpt-5-nano',
    });
    for (const wrong of [{ fallbackModel: 'not-a-model' }, { subagentModel: 'not-a-model' }]) {
      await expect(profiles.save(machine, 'slack:U1', body(wrong))).rejects.toMatchObject({
        code: 'BAD_REQUEST',
      });
    }
    expect(saved).toHaveLength(1);
  });

  it("keeps a person's ready pull requests, always-create policy and default repository", async () => {
    const { saved, repository } = recordingProfiles();

    const row = await new ProfilesService(repository).save(
      person('octocat'),
      'github:octocat',
      body({
        model: 'openai-compatible:local',
        defaultRepository: 'acme/web',
        draftPullRequests: false,
        alwaysCreatePullRequests: true,
      }),
    );

    expect(row).toMatchObject({
      draftPullRequests: false,
      alwaysCreatePullRequests: true,
      defaultRepository: 'acme/web',
    });
    expect(saved[0]).toMatchObject({ model: 'openai-compatible:local' });
  });

  it("refuses a member saving someone else's profile; an admin may", async () => {
    const { saved, repository } = recordingProfiles();
    const service = new ProfilesService(repository);

    const refused = await refusal(() =>
      service.save(person('mallory'), 'github:octocat', body({})),
    );
    expect(refused).toEqual({
      code: 'FORBIDDEN',
      message:
        "mallory may only change their own profile (github:mallory); another person's are for admins",
    });
    expect(saved).toEqual([]);
    await service.save(person('root', 'admin'), 'github:octocat', body({}));
    expect(saved).toHaveLength(1);
  });

  it('refuses fields of the wrong type and unknown fields, naming each problem', () => {
    const wrong = (raw: unknown) => () => body(raw);
    expect(wrong({ draftPullRequests: 'no', alwaysCreatePullRequests: 1 })).toThrow(
      /draftPullRequests: .*; alwaysCreatePullRequests: /,
    );
    expect(wrong({ autofixCi: 'off' })).toThrow(/autofixCi: /);
    expect(wrong({ draft: true })).toThrow(/invalid profile/);
    expect(wrong({ defaultRepository: 'not a repo' })).toThrow(/defaultRepository: owner\/name/);
  });

  it('refuses an unknown model before saving anything', async () => {
    const { saved, repository } = recordingProfiles();

    const refused = await refusal(() =>
      new ProfilesService(repository).save(
        machine,
        'slack:U1',
        body({ model: 'nonexistent:model-x' }),
      ),
    );

    expect(refused.code).toBe('BAD_REQUEST');
    expect(saved).toEqual([]);
  });
});
