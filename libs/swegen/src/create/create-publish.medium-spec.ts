import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CannedChatModel } from '@caravel/agent/langchain';
import { FakeGitHub } from '@caravel/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GithubPrSource } from '../pr/github-pr-source.js';
import { resolvePublishConfig } from '../publish/publish-config.js';
import { publishHookOf, TaskPublisher } from '../publish/task-publisher.js';
import {
  buildDatasetRepo,
  buildFarmFixture,
  evaluationResponses,
  type FarmFixture,
} from '../testing/farm-fixture.js';
import { createTask, type CreateTaskOptions } from './create-task.js';

const TOKEN = 'ghp_createtoken';
const DATASET = 'data/tasks';

describe('create --publish-repo (fake GitHub, bare dataset repository)', () => {
  let scratch: string;
  let fixture: FarmFixture;
  let fake: FakeGitHub;
  let model: CannedChatModel;

  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'swegen-create-publish-'));
    fixture = buildFarmFixture([{ number: 4 }]);
    fake = new FakeGitHub({ root: join(scratch, 'git') }).addUserToken(TOKEN, 'maker');
    for (const pull of fixture.pulls) fake.addSourcePull('acme/strings', pull);
    for (const issue of fixture.issues) fake.addSourceIssue('acme/strings', issue);
    buildDatasetRepo(join(scratch, 'git'), DATASET);
    await fake.start();
    model = new CannedChatModel({ responses: evaluationResponses(5), file: 'x', kind: 'scripted' });
  });

  afterEach(async () => {
    await fake.close();
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  const stateDir = (): string => join(scratch, '.swegen');

  /** create's options with the publisher wired as the CLI wires it. */
  const options = (): CreateTaskOptions => {
    const publisher = new TaskPublisher(
      resolvePublishConfig(
        { repo: DATASET, token: TOKEN, apiUrl: fake.origin },
        'acme/strings',
        stateDir(),
      ),
    );
    return {
      repo: 'acme/strings',
      pr: 4,
      source: new GithubPrSource({ token: TOKEN, apiUrl: fake.origin }),
      stateDir: stateDir(),
      tasksDir: join(scratch, 'tasks'),
      model,
      validate: false,
      preflight: () => publisher.preflight(),
      publish: publishHookOf(publisher),
    };
  };

  const records = async (): Promise<Record<string, unknown>[]> =>
    (await readFile(join(stateDir(), 'create.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('refuses a token reporting push: false before any generation', async () => {
    fake.setPermissions(DATASET, { pull: true, push: false });
    await expect(createTask(options())).rejects.toMatchObject({
      details: { reason: 'publish_auth_error' },
    });
    expect(model.calls.length).toBe(0);
    expect(existsSync(join(scratch, 'tasks'))).toBe(false);
    expect(existsSync(join(stateDir(), 'repos'))).toBe(false);
    expect(existsSync(join(stateDir(), 'create.jsonl'))).toBe(false);
  }, 60_000);

  it('rewrites the create.jsonl record when a failed publish is retried without regeneration', async () => {
    fake.failNext(
      { method: 'POST', path: `/repos/${DATASET}/pulls` },
      { status: 422, body: { message: 'nope' } },
    );
    await expect(createTask(options())).rejects.toMatchObject({
      details: { reason: 'publish_error' },
    });
    expect(await records()).toEqual([
      expect.objectContaining({ key: 'acme/strings#4', published: false }),
    ]);
    expect((await records())[0]).not.toHaveProperty('pr_url');

    const retried = await createTask(options());
    expect(retried).toMatchObject({ status: 'deduped', published: true });
    expect(retried.prUrl).toMatch(/\/data\/tasks\/pull\/\d+$/);
    expect(model.calls.length).toBe(1);
    expect(await records()).toEqual([
      expect.objectContaining({
        key: 'acme/strings#4',
        task_id: 'acme__strings-4',
        published: true,
        pr_url: retried.prUrl,
      }),
    ]);
  }, 60_000);
});
