import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CannedChatModel } from '@caravel/agent/langchain';
import { FakeGitHub } from '@caravel/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { abortReason } from '../errors/deadline.js';
import { GithubPrSource } from '../pr/github-pr-source.js';
import {
  buildFarmFixture,
  evaluationResponses,
  type FarmFixture,
} from '../testing/farm-fixture.js';
import type { TaskValidation } from '../validate/validation-result.js';
import { FarmState } from './farm-state.js';
import { runFarm, type FarmOptions } from './farm.js';

const TOKEN = 'ghp_farmtoken';

describe('farm without publishing (fake GitHub)', () => {
  let scratch: string;
  let fixture: FarmFixture | undefined;
  let fake: FakeGitHub | undefined;
  let model: CannedChatModel;

  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'swegen-farm-local-'));
    model = new CannedChatModel({
      responses: evaluationResponses(10),
      file: 'x',
      kind: 'scripted',
    });
  });

  afterEach(async () => {
    await fake?.close();
    fixture?.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  async function serve(prs: Parameters<typeof buildFarmFixture>[0]): Promise<void> {
    fixture = buildFarmFixture(prs);
    fake = new FakeGitHub({ root: join(scratch, 'git') }).addUserToken(TOKEN, 'farmer');
    for (const pull of fixture.pulls) fake.addSourcePull('acme/strings', pull);
    for (const issue of fixture.issues) fake.addSourceIssue('acme/strings', issue);
    await fake.start();
  }

  const options = (extra: Partial<FarmOptions> = {}): FarmOptions => ({
    repo: 'acme/strings',
    source: new GithubPrSource({ token: TOKEN, apiUrl: fake!.origin }),
    stateDir: join(scratch, '.swegen'),
    tasksDir: join(scratch, 'tasks'),
    create: { model, validate: false },
    perPage: 2,
    ...extra,
  });

  const savedState = async (stateDir: string): Promise<FarmState> =>
    FarmState.fromJSON(
      JSON.parse(
        await readFile(join(stateDir, 'stream_farm', 'acme__strings.json'), 'utf8'),
      ) as unknown,
    );

  it('records a merged PR that touches no test file in no_tests_prs, counters derived; a dry run records nothing', async () => {
    await serve([{ number: 1 }, { number: 2, tests: false }, { number: 3 }]);
    const lines: string[] = [];
    const result = await runFarm(options({ log: (line) => lines.push(line) }));
    expect(result.outcome).toBe('completed');
    const expected = {
      processed_prs: [1, 2, 3],
      no_tests_prs: [2],
      successful_prs: { '1': 'acme__strings-1', '3': 'acme__strings-3' },
      total_processed: 3,
      successful: 2,
      failed: 1,
    };
    expect(result.state.toJSON()).toMatchObject(expected);
    expect((await savedState(join(scratch, '.swegen'))).toJSON()).toMatchObject(expected);
    expect(model.calls.length).toBe(2);
    expect(lines).toContain('#2 no_tests: the PR touches no test file');

    const dry = await runFarm(options({ dryRun: true, stateDir: join(scratch, '.swegen-dry') }));
    expect(dry.state.toJSON()).toMatchObject({ processed_prs: [], no_tests_prs: [], failed: 0 });
    expect(existsSync(join(scratch, '.swegen-dry', 'stream_farm'))).toBe(false);
  }, 120_000);

  it('abandons a PR whose generation outlives --timeout, records it as timed out and farms on', async () => {
    await serve([{ number: 1 }, { number: 2 }, { number: 3 }]);
    const started: string[] = [];
    const stopped: string[] = [];
    const passed = (taskDir: string): TaskValidation => ({
      taskId: basename(taskDir),
      taskDir,
      runner: 'bwrap-host',
      nop: { agent: 'nop', reward: 0 },
      oracle: { agent: 'oracle', reward: 1 },
      passed: true,
    });
    // PR 2's validation is the scripted slow step: it ends only when the deadline stops it.
    const validator = (taskDir: string, signal?: AbortSignal): Promise<TaskValidation> => {
      if (basename(taskDir) !== 'acme__strings-2') return Promise.resolve(passed(taskDir));
      started.push(basename(taskDir));
      return new Promise((_, reject) =>
        signal?.addEventListener('abort', () => {
          stopped.push(basename(taskDir));
          reject(abortReason(signal));
        }),
      );
    };
    const lines: string[] = [];
    const result = await runFarm(
      options({
        create: { model, validator, validate: true },
        timeoutMs: 8_000,
        log: (line) => lines.push(line),
      }),
    );
    expect(result.outcome).toBe('completed');
    expect(started).toEqual(['acme__strings-2']);
    expect(stopped).toEqual(['acme__strings-2']);
    const state = (await savedState(join(scratch, '.swegen'))).toJSON();
    expect(state).toMatchObject({
      processed_prs: [1, 2, 3],
      timeout_prs: [2],
      successful_prs: { '1': 'acme__strings-1', '3': 'acme__strings-3' },
      successful: 2,
      failed: 1,
    });
    expect(state.last_run?.recent_results).toContainEqual({
      pr: 2,
      status: 'failure',
      category: 'timeout',
      message: '#2 took longer than 8 s (--timeout): abandoned',
    });
    expect(existsSync(join(scratch, 'tasks', 'acme__strings-2'))).toBe(false);
    expect(existsSync(join(scratch, 'tasks', 'acme__strings-1', 'tests'))).toBe(true);
    const records = await readFile(join(scratch, '.swegen', 'create.jsonl'), 'utf8');
    expect(records).not.toContain('acme/strings#2');
    expect(lines.some((l) => l.includes('#2 timeout: #2 took longer than 8 s'))).toBe(true);
  }, 120_000);
});
