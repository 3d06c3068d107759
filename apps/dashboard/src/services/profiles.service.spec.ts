import type { UserProfileRepository, UserProfileSave } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { ProfilesService } from './profiles.service.js';

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
  it('saves draft pull requests and the team policy when the body does not say', async () => {
    const { saved, repository } = recordingProfiles();

    await new ProfilesService(repository).save('slack:U1', {});

    expect(saved).toEqual([
      {
        identity: 'slack:U1',
        model: null,
        reasoningEffort: null,
        draftPullRequests: true,
        alwaysCreatePullRequests: null,
      },
    ]);
  });

  it('keeps a preference for ready pull requests and the always-create policy', async () => {
    const { saved, repository } = recordingProfiles();

    const row = await new ProfilesService(repository).save('github:octocat', {
      model: 'openai-compatible:local',
      draftPullRequests: false,
      alwaysCreatePullRequests: true,
    });

    expect(row).toMatchObject({ draftPullRequests: false, alwaysCreatePullRequests: true });
    expect(saved[0]).toMatchObject({ model: 'openai-compatible:local' });
  });

  it('refuses fields of the wrong type, unknown fields and a bad identity, naming each problem', async () => {
    const { saved, repository } = recordingProfiles();
    const service = new ProfilesService(repository);

    const wrong = await refusal(() =>
      service.save('slack:U1', { draftPullRequests: 'no', alwaysCreatePullRequests: 1 }),
    );
    expect(wrong.code).toBe('BAD_REQUEST');
    expect(wrong.message).toMatch(/draftPullRequests: .*; alwaysCreatePullRequests: /);
    expect((await refusal(() => service.save('slack:U1', { draft: true }))).code).toBe(
      'BAD_REQUEST',
    );
    expect((await refusal(() => service.save('no identity', {}))).message).toMatch(
      /invalid identity/,
    );
    expect(saved).toEqual([]);
  });

  it('refuses an unknown model before saving anything', async () => {
    const { saved, repository } = recordingProfiles();

    const refused = await refusal(() =>
      new ProfilesService(repository).save('slack:U1', { model: 'nonexistent:model-x' }),
    );

    expect(refused.code).toBe('BAD_REQUEST');
    expect(saved).toEqual([]);
  });
});
