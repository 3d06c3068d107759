import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolveModel } from '@caravel/agent';
import { createChatModel } from '@caravel/agent/langchain';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalPrSource } from '../pr/local-pr-source.js';
import { buildJsBugFixFixture, type JsBugFixFixture } from '../testing/js-fixture.js';
import { jsFixtureModelScript } from '../testing/js-fixture-script.js';
import { createTask, type CreateTaskOptions } from './create-task.js';

describe('createTask', () => {
  let fixture: JsBugFixFixture;
  let scratch: string;
  let taskDir: string;

  beforeAll(async () => {
    fixture = buildJsBugFixFixture();
    scratch = await mkdtemp(join(tmpdir(), 'swegen-force-'));
    taskDir = join(scratch, 'tasks', 'acme__strings-7');
  });

  afterAll(async () => {
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  /** A create of acme/strings#7 over an existing task, without completion or validation. */
  async function regenerate(script: string): Promise<unknown> {
    const prFile = join(scratch, 'pr.json');
    await writeFile(prFile, JSON.stringify(fixture.prJson));
    const scriptFile = join(scratch, `model-${Date.now()}.json`);
    await writeFile(scriptFile, script);
    const options: CreateTaskOptions = {
      repo: 'acme/strings',
      pr: 7,
      source: await LocalPrSource.load(fixture.repo.path, prFile),
      stateDir: join(scratch, '.swegen'),
      tasksDir: join(scratch, 'tasks'),
      model: createChatModel(resolveModel({ team: { model: `scripted:${scriptFile}` } }), {}),
      validate: false,
      force: true,
    };
    return createTask(options);
  }

  it('with force keeps the previous task when the new one fails, and replaces it once written', async () => {
    await mkdir(taskDir, { recursive: true });
    await writeFile(join(taskDir, 'previous.txt'), 'the task that was there\n');

    // A model with no answer: the evaluation fails after the repository cache and the split.
    await expect(regenerate(JSON.stringify({ responses: [] }))).rejects.toThrow();
    expect(await readFile(join(taskDir, 'previous.txt'), 'utf8')).toBe('the task that was there\n');

    await expect(regenerate(jsFixtureModelScript())).resolves.toMatchObject({ status: 'created' });
    expect(existsSync(join(taskDir, 'previous.txt'))).toBe(false);
    expect(existsSync(join(taskDir, 'task.toml'))).toBe(true);
    expect(readdirSync(join(scratch, 'tasks'))).toEqual(['acme__strings-7']);
  });

  it('leaves the skeleton for a person without a model (--no-completion)', async () => {
    const prFile = join(scratch, 'pr.json');
    const result = await createTask({
      repo: 'acme/strings',
      pr: 7,
      source: await LocalPrSource.load(fixture.repo.path, prFile),
      stateDir: join(scratch, '.swegen-manual'),
      tasksDir: join(scratch, 'manual-tasks'),
      validate: false,
    });
    expect(result).toMatchObject({ status: 'created', evaluation: { is_substantial: true } });
    const instruction = await readFile(join(result.taskDir, 'instruction.md'), 'utf8');
    expect(instruction).toContain('Drop trailing dashes in slugify');
    expect(existsSync(join(result.taskDir, 'solution', 'fix.patch'))).toBe(true);
  });
});
