import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { EnabledRepositoryRepository } from './enabled-repository.repository.js';
import {
  MAX_REPOSITORY_INSTRUCTIONS_CHARS,
  RepositoryInstructionsRepository,
} from './repository-instructions.repository.js';
import { TeamDefaultsRepository } from './team-defaults.repository.js';
import { ThreadPlanRepository } from './thread-plan.repository.js';
import { ThreadRepository } from './thread.repository.js';
import { UserProfileRepository } from './user-profile.repository.js';

await describeEachDatabase('dashboard settings and thread filters', openDatabase, (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await target.open();
  });

  afterAll(async () => {
    await database?.close();
  });

  it('enables, replaces and removes a repository, listing by name', async () => {
    const repositories = new EnabledRepositoryRepository(database.db);
    await repositories.save({
      repository: 'acme/web',
      agent: true,
      autoReview: false,
      ciAutofix: false,
      updatedBy: 'octocat',
    });
    await repositories.save({
      repository: 'acme/api',
      agent: false,
      autoReview: true,
      ciAutofix: true,
      updatedBy: 'hubot',
    });
    const replaced = await repositories.save({
      repository: 'acme/web',
      agent: false,
      autoReview: true,
      ciAutofix: false,
      updatedBy: 'hubot',
    });
    expect(replaced).toMatchObject({ agent: false, autoReview: true, updatedBy: 'hubot' });
    expect((await repositories.list()).map((r) => r.repository)).toEqual(['acme/api', 'acme/web']);
    expect(await repositories.remove('acme/api')).toBe(true);
    expect(await repositories.remove('acme/api')).toBe(false);
    expect((await repositories.list()).map((r) => r.repository)).toEqual(['acme/web']);
  });

  it("keeps a profile's default repository, fallback and subagent models and clears them on a save without", async () => {
    const profiles = new UserProfileRepository(database.db);
    const saved = await profiles.save({
      identity: 'github:octocat',
      model: null,
      reasoningEffort: null,
      defaultRepository: 'acme/web',
      fallbackModel: 'openai:gpt-5-mini',
      subagentModel: 'openai:gpt-5-nano',
    });
    expect(saved).toMatchObject({
      defaultRepository: 'acme/web',
      fallbackModel: 'openai:gpt-5-mini',
      subagentModel: 'openai:gpt-5-nano',
    });
    await profiles.save({ identity: 'github:octocat', model: null, reasoningEffort: null });
    expect(await profiles.get('github:octocat')).toMatchObject({
      defaultRepository: null,
      fallbackModel: null,
      subagentModel: null,
    });
  });

  it('keeps one row of team defaults, replaced by each save, none before the first', async () => {
    const team = new TeamDefaultsRepository(database.db);
    expect(await team.get()).toBeNull();
    const defaults = {
      model: 'openai:gpt-5-mini',
      reasoningEffort: 'low',
      fallbackModel: 'claude-haiku-4-5',
      subagentModel: 'gpt-5-nano',
      draftPullRequests: false,
      alwaysCreatePullRequests: true,
      updatedBy: 'octocat',
    };
    expect(await team.save(defaults)).toMatchObject(defaults);
    await team.save({ ...defaults, model: null, reasoningEffort: null, updatedBy: 'hubot' });
    expect(await team.get()).toMatchObject({
      model: null,
      reasoningEffort: null,
      fallbackModel: 'claude-haiku-4-5',
      updatedBy: 'hubot',
    });
    const rows = await database.db.selectFrom('team_defaults').select('id').execute();
    expect(rows).toEqual([{ id: 'team' }]);
    await expect(
      database.db.insertInto('team_defaults').values({ id: 'other', updated_by: 'x' }).execute(),
    ).rejects.toThrow(/team_defaults_id_check/);
  });

  it("keeps a repository's instructions whatever its case, who changed them, and caps their size", async () => {
    const instructions = new RepositoryInstructionsRepository(database.db);
    const at = new Date('2026-06-01T00:00:00Z');
    await instructions.save({
      repository: 'Acme/Web',
      instructions: 'Run npm test.',
      updatedBy: 'octocat',
      at,
    });
    const replaced = await instructions.save({
      repository: 'acme/web',
      instructions: 'Run pnpm test.',
      updatedBy: 'hubot',
    });
    expect(replaced).toMatchObject({ repository: 'acme/web', updatedBy: 'hubot' });
    expect(replaced.updatedAt.getTime()).toBeGreaterThan(at.getTime());
    expect(await instructions.find('ACME/web')).toMatchObject({ instructions: 'Run pnpm test.' });
    expect((await instructions.list()).map((row) => row.repository)).toEqual(['acme/web']);
    await expect(
      instructions.save({
        repository: 'acme/api',
        instructions: 'x'.repeat(MAX_REPOSITORY_INSTRUCTIONS_CHARS + 1),
        updatedBy: 'octocat',
      }),
    ).rejects.toThrow(/repository_instructions_length_check/);
    expect(await instructions.remove('acme/WEB')).toBe(true);
    expect(await instructions.remove('acme/web')).toBe(false);
    expect(await instructions.find('acme/web')).toBeNull();
  });

  it('filters threads by source, repository, owner and update time', async () => {
    const threads = new ThreadRepository(database.db);
    const owners = new ThreadPlanRepository(database.db);
    const [slack, github, old] = [randomUUID(), randomUUID(), randomUUID()];
    const repo = `acme-${randomUUID().slice(0, 8)}`;
    const at = (iso: string) => new Date(iso);
    await threads.upsert({
      id: slack,
      source: 'slack',
      repositoryOwner: repo,
      repositoryName: 'web',
      at: at('2026-06-02T00:00:00Z'),
    });
    await threads.upsert({
      id: github,
      source: 'github',
      repositoryOwner: repo,
      repositoryName: 'api',
      at: at('2026-06-03T00:00:00Z'),
    });
    await threads.upsert({
      id: old,
      source: 'slack',
      repositoryOwner: repo,
      repositoryName: 'web',
      at: at('2026-01-01T00:00:00Z'),
    });
    await owners.claimOwner(github, 'github:octocat');

    const ids = async (query: Parameters<ThreadRepository['list']>[0]) =>
      (await threads.list({ limit: 500, ...query })).map((t) => t.id);
    expect(await ids({ repository: `${repo}/web` })).toEqual([slack, old]);
    expect(
      await ids({ repository: `${repo}/web`, updatedSince: at('2026-06-01T00:00:00Z') }),
    ).toEqual([slack]);
    expect(await ids({ repository: `${repo}/api`, source: 'slack' })).toEqual([]);
    expect(await ids({ owner: 'github:octocat' })).toContain(github);
    expect(await ids({ owner: 'github:octocat' })).not.toContain(slack);
  });
});
