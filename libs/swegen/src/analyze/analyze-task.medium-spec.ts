import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolveModel } from '@caravel/agent';
import { createChatModel } from '@caravel/agent/langchain';
import { BwrapSandboxProvider, bwrapAvailable } from '@caravel/sandbox';
import { testEnvironment } from '@caravel/testing';
import { access, chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTask } from '../create/create-task.js';
import { LocalPrSource } from '../pr/local-pr-source.js';
import { buildJsBugFixFixture, type JsBugFixFixture } from '../testing/js-fixture.js';
import { jsFixtureModelScript } from '../testing/js-fixture-script.js';
import { validateTasks } from '../validate/validate-tasks.js';
import { analyzeTask, type AnalyzedTrial, type TaskAnalysis } from './analyze-task.js';
import { TRIAL_CLASSIFICATION_TOOL } from './trial-classifier.js';

// Only outside CI may a missing bubblewrap skip the suite; in CI it must fail instead.
const describeBwrap = bwrapAvailable() || testEnvironment.CI ? describe : describe.skip;

const FIXED_FILES = ['src/slugify.js', 'src/whitespace.js', 'src/index.js'];

/** Trial 1 writes the PR's fixed sources; trial 2 looks for the tests, then gives up. */
function agentScript(fixture: JsBugFixFixture): string {
  const writes = FIXED_FILES.map((path) => ({
    content: `Fixing ${path}.`,
    tool_calls: [
      {
        name: 'write_file',
        args: { path, content: fixture.repo.git('show', `${fixture.headSha}:${path}`) },
      },
    ],
  }));
  const finish = (summary: string) => ({
    content: summary,
    tool_calls: [{ name: 'finish', args: { summary } }],
  });
  const look = {
    content: 'Looking for tests.',
    tool_calls: [{ name: 'execute', args: { command: 'ls test /tests 2>&1; echo listed' } }],
  };
  return JSON.stringify({ responses: [...writes, finish('fixed'), look, finish('giving up')] });
}

function classifierScript(): string {
  const answer = (classification: string, reason: string) => ({
    content: 'Classified.',
    tool_calls: [
      {
        name: TRIAL_CLASSIFICATION_TOOL,
        args: { classification, reason, evidence: '# fail 0' },
      },
    ],
  });
  return JSON.stringify({
    responses: [
      answer('good_success', 'The agent fixed slugify and collapse.'),
      answer('good_failure', 'The agent made no change.'),
    ],
  });
}

describeBwrap('analyze a task with scripted agent trials in bubblewrap', () => {
  let fixture: JsBugFixFixture;
  let scratch: string;

  beforeAll(async () => {
    fixture = buildJsBugFixFixture();
    scratch = await mkdtemp(join(tmpdir(), 'swegen-analyze-'));
    await chmod(scratch, 0o755);
  });

  afterAll(async () => {
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  const scripted = async (name: string, script: string) => {
    const file = join(scratch, name);
    await writeFile(file, script);
    return createChatModel(resolveModel({ team: { model: `scripted:${file}` } }), {});
  };

  it('verifies a fixing trial (reward 1) and an idle one (reward 0), classifies both and calls the task good', async () => {
    const prFile = join(scratch, 'pr.json');
    await writeFile(prFile, JSON.stringify(fixture.prJson));
    const stateDir = join(scratch, '.swegen');
    const sandboxRoot = join(scratch, 'sandboxes');
    const provider = new BwrapSandboxProvider({ rootDir: sandboxRoot });
    const hostWorkspace = (id: string) => join(sandboxRoot, id, 'workspace');
    const created = await createTask({
      repo: 'acme/strings',
      pr: 7,
      source: await LocalPrSource.load(fixture.repo.path, prFile),
      stateDir,
      tasksDir: join(scratch, 'tasks'),
      model: await scripted('create.json', jsFixtureModelScript()),
      completion: { provider, hostWorkspace },
      validator: async (taskDir) =>
        (await validateTasks(taskDir, { stateDir, runner: 'bwrap' }))[0]!,
    });
    expect(created.validation?.passed).toBe(true);

    const progress: AnalyzedTrial[] = [];
    const analysis = await analyzeTask(created.taskDir, {
      repoPath: fixture.repo.path,
      stateDir,
      trials: 2,
      concurrency: 1,
      model: await scripted('agent.json', agentScript(fixture)),
      classifier: await scripted('classifier.json', classifierScript()),
      provider,
      hostWorkspace,
      onTrial: (trial) => progress.push(trial),
      now: () => new Date('2026-02-03T04:05:06Z'),
    });

    expect(progress.map((t) => t.trial)).toEqual([1, 2]);
    const [fixing, idle] = analysis.trials;
    expect(fixing).toMatchObject({
      trial: 1,
      reward: 1,
      classification: { classification: 'good_success' },
      testFilesTouched: [],
    });
    expect([...(fixing?.changedFiles ?? [])].sort()).toEqual([...FIXED_FILES].sort());
    expect(idle).toMatchObject({
      trial: 2,
      reward: 0,
      changedFiles: [],
      classification: { classification: 'good_failure' },
    });
    expect(analysis.verdict).toMatchObject({
      verdict: 'good',
      keep: true,
      passed: 1,
      trials: 2,
      counts: { good_success: 1, bad_success: 0, good_failure: 1, bad_failure: 0 },
    });
    const fixingOut = await readFile(join(fixing!.logDir, 'verifier/test-stdout.txt'), 'utf8');
    expect(fixingOut).toMatch(/# fail 0/);
    const idleOut = await readFile(join(idle!.logDir, 'verifier/test-stdout.txt'), 'utf8');
    expect(idleOut).toMatch(/# fail [12]/);
    expect(await readFile(join(fixing!.logDir, 'agent/changes.diff'), 'utf8')).toContain(
      "replace(/^-+|-+$/g, '')",
    );
    const idleSteps = await readFile(join(idle!.logDir, 'agent/trajectory.txt'), 'utf8');
    expect(idleSteps).toContain("ls: cannot access 'test'");
    expect(idleSteps).toContain("ls: cannot access '/tests'");
    const written = JSON.parse(
      await readFile(join(created.taskDir, 'analysis.json'), 'utf8'),
    ) as TaskAnalysis;
    expect(written).toMatchObject({
      taskId: 'acme__strings-7',
      analyzedAt: '2026-02-03T04:05:06.000Z',
      verdict: { verdict: 'good' },
    });
    await expect(access(join(created.taskDir, 'tests', 'test.sh'))).resolves.toBeUndefined();
  }, 300_000);
});
