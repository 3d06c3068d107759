import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolveModel } from '@caravel/agent';
import { createChatModel } from '@caravel/agent/langchain';
import { BwrapSandboxProvider, bwrapAvailable } from '@caravel/sandbox';
import { testEnvironment } from '@caravel/testing';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalPrSource } from '../pr/local-pr-source.js';
import { buildJsBugFixFixture, type JsBugFixFixture } from '../testing/js-fixture.js';
import { jsFixtureModelScript } from '../testing/js-fixture-script.js';
import { validateTasks } from '../validate/validate-tasks.js';
import { createTask } from './create-task.js';

// Only outside CI may a missing bubblewrap skip the suite; in CI it must fail instead.
const describeBwrap = bwrapAvailable() || testEnvironment.CI ? describe : describe.skip;

describeBwrap('create from an injected PR, then validate in bubblewrap', () => {
  let fixture: JsBugFixFixture;
  let scratch: string;

  beforeAll(async () => {
    fixture = buildJsBugFixFixture();
    scratch = await mkdtemp(join(tmpdir(), 'swegen-create-'));
    await chmod(scratch, 0o755);
  });

  afterAll(async () => {
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  it('writes a task whose NOP scores 0 and Oracle 1', async () => {
    const prFile = join(scratch, 'pr.json');
    await writeFile(prFile, JSON.stringify(fixture.prJson));
    const scriptFile = join(scratch, 'model.json');
    await writeFile(scriptFile, jsFixtureModelScript());
    const model = createChatModel(resolveModel({ team: { model: `scripted:${scriptFile}` } }), {});
    const stateDir = join(scratch, '.swegen');
    const sandboxRoot = join(scratch, 'sandboxes');
    const result = await createTask({
      repo: 'acme/strings',
      pr: 7,
      source: await LocalPrSource.load(fixture.repo.path, prFile),
      stateDir,
      tasksDir: join(scratch, 'tasks'),
      model,
      completion: {
        provider: new BwrapSandboxProvider({ rootDir: sandboxRoot }),
        hostWorkspace: (id) => join(sandboxRoot, id, 'workspace'),
      },
      validator: async (taskDir) =>
        (await validateTasks(taskDir, { stateDir, runner: 'bwrap' }))[0]!,
    });
    expect(result).toMatchObject({
      status: 'created',
      taskId: 'acme__strings-7',
      published: false,
    });
    expect(result.validation).toMatchObject({
      passed: true,
      nop: { reward: 0 },
      oracle: { reward: 1 },
    });
    const testSh = await readFile(join(result.taskDir, 'tests/test.sh'), 'utf8');
    expect(testSh).toContain('node --test test/slugify.test.js');
    const nopOut = await readFile(
      join(result.validation!.nop.logDir!, 'verifier/test-stdout.txt'),
      'utf8',
    );
    const oracleOut = await readFile(
      join(result.validation!.oracle.logDir!, 'verifier/test-stdout.txt'),
      'utf8',
    );
    expect(nopOut).toMatch(/# fail [12]/);
    expect(oracleOut).toMatch(/# pass 2/);
    expect(oracleOut).toMatch(/# fail 0/);
    const log = await readFile(join(stateDir, 'create.jsonl'), 'utf8');
    expect(JSON.parse(log.trim())).toMatchObject({
      key: 'acme/strings#7',
      task_id: 'acme__strings-7',
      published: false,
    });
    const references = JSON.parse(
      await readFile(join(stateDir, 'task_references.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(references['acme/strings']).toMatchObject({ taskId: 'acme__strings-7', pr: 7 });
    const again = await validateTasks(result.taskDir, { stateDir, runner: 'bwrap' });
    expect(again[0]).toMatchObject({ passed: true, nop: { reward: 0 }, oracle: { reward: 1 } });
  }, 300_000);
});
