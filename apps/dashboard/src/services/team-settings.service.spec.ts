import type {
  RepositoryInstructionsRepository,
  TeamDefaultsRepository,
  TeamDefaultsSave,
} from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import type { Caller } from '../auth/session.types.js';
import { TeamSettingsService } from './team-settings.service.js';

const admin: Caller = {
  kind: 'person',
  session: {
    login: 'hubot',
    githubId: 2,
    name: null,
    avatarUrl: null,
    role: 'admin',
    expiresAt: 0,
  },
};
const body = (raw: unknown) => parseInput(ROUTES.saveTeamDefaults.body, raw, 'team defaults');

/** Only `save` of the team's defaults may be called; it echoes what it was given. */
function service(saved: TeamDefaultsSave[]): TeamSettingsService {
  const defaults = strictMock<TeamDefaultsRepository>(
    {
      save: (save: TeamDefaultsSave) => {
        saved.push(save);
        return Promise.resolve({ ...save, updatedAt: new Date(0) });
      },
    },
    'team defaults',
  );
  return new TeamSettingsService(defaults, strictMock<RepositoryInstructionsRepository>({}, 'ri'));
}

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (isAppError(error) && error.code === 'BAD_REQUEST') return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('TeamSettingsService', () => {
  it('lists the supported models as the response schema reads them, hosted first, efforts spelled out', () => {
    const models = service([]).supportedModels();
    expect(ROUTES.supportedModels.response.parse(models)).toEqual(models);
    const hosted = models.filter((m) => m.provider === 'anthropic' || m.provider === 'openai');
    expect(hosted.length).toBeGreaterThan(3);
    expect(models.slice(0, hosted.length)).toEqual(hosted);
    for (const model of hosted) expect(model.inputPricePerMillion).toBeGreaterThan(0);
    const withEffort = models.find((m) => m.effortLevels.length > 0);
    expect(withEffort?.effortLevels).toContain(withEffort?.defaultEffort);
    expect(models.map((m) => m.provider)).toEqual(expect.arrayContaining(['scripted', 'replay']));
  });

  it('saves the team defaults under the admin who saved them, unset fields null', async () => {
    const saved: TeamDefaultsSave[] = [];
    await service(saved).saveTeamDefaults(admin, body({ model: 'gpt-5', reasoningEffort: 'low' }));
    expect(saved).toEqual([
      {
        model: 'gpt-5',
        reasoningEffort: 'low',
        fallbackModel: null,
        subagentModel: null,
        draftPullRequests: null,
        alwaysCreatePullRequests: null,
        updatedBy: 'hubot',
      },
    ]);
  });

  it.each([
    [{ model: 'gpt-7-ultra' }, /gpt-7-ultra/],
    [{ fallbackModel: 'anthropic:gpt-5' }, /gpt-5/],
    [{ subagentModel: 'no-such-model' }, /no-such-model/],
    [{ model: 'claude-sonnet-4-5', reasoningEffort: 'high' }, /takes no reasoning effort/],
    [{ reasoningEffort: 'low' }, /needs a team model/],
  ])('refuses %j before saving anything', async (settings, message) => {
    const saved: TeamDefaultsSave[] = [];
    expect(await refusal(() => service(saved).saveTeamDefaults(admin, body(settings)))).toMatch(
      message,
    );
    expect(saved).toEqual([]);
  });
});
