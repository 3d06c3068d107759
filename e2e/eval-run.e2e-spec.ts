import { spawnSync } from 'node:child_process';
import { access, chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvalProposalRepository, openDatabase } from '@caravel/db';
import { buildEvalSuite, type EvalSuiteFixture } from './support/eval-suite.js';
import { startEmbeddedPlatform } from './support/platform.js';
import { buildWorkspace, repoRoot } from './support/processes.js';

/** Runs the built `caravel ...` in `cwd` with no network-bound configuration. */
function caravel(cwd: string, args: string[]) {
  const result = spawnSync(process.execPath, [join(repoRoot, 'apps/cli/dist/main.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: cwd },
    timeout: 240_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function json<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

interface Attempt {
  resolved: boolean;
  exitStatus: string;
  modelCalls: number;
  inputTokens: number;
  patch: string;
  trajPath?: string;
}
interface Run {
  config: string;
  tasks: { taskId: string; attempts: Attempt[] }[];
}

describe('caravel eval run + compare (swegen tasks, scripted models, bubblewrap)', () => {
  let scratch: string;
  let fixture: EvalSuiteFixture;

  beforeAll(async () => {
    buildWorkspace();
    scratch = await mkdtemp(join(tmpdir(), 'eval-e2e-'));
    await chmod(scratch, 0o755);
    fixture = await buildEvalSuite(scratch);
    for (const args of fixture.createArgs) {
      const created = caravel(scratch, ['swegen', ...args]);
      expect(created.stderr).toBe('');
      expect(created.status).toBe(0);
    }
  });

  afterAll(async () => {
    fixture?.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  const evalRun = (config: string, ...extra: string[]) =>
    caravel(scratch, [
      'eval',
      'run',
      'tasks',
      '--config',
      `${config}.json`,
      '--out',
      `runs/${config}`,
      // One slot, its platform data kept between the runs: the database is made once.
      '--concurrency',
      '1',
      '--data-dir',
      'platform',
      ...extra,
    ]);

  it('runs each configuration on the suite, graded by the tasks’ tests, and writes the run files', async () => {
    const good = evalRun('fixes-both');
    expect(`${good.stdout}${good.stderr}`).toContain('done: 2/2 task(s) resolved');
    expect(good.stderr).not.toContain('caravel eval:');
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/^\[2\/2\] acme__strings-\d #1 resolved \(submitted, 4 calls/m);
    expect(good.stdout).toContain('done: 2/2 task(s) resolved');
    const run = await json<Run>(join(scratch, 'runs/fixes-both/caravel-eval.json'));
    expect(run.config).toBe('fixes-both');
    expect(run.tasks.map((t) => [t.taskId, t.attempts[0]?.resolved])).toEqual([
      ['acme__strings-1', true],
      ['acme__strings-2', true],
    ]);
    const [first] = run.tasks[0]!.attempts;
    expect(first).toMatchObject({ exitStatus: 'submitted', modelCalls: 4, inputTokens: 4000 });
    expect(first!.patch).toContain("+  return s.trim().replace(/ +/g, ' ');");
    await expect(access(first!.trajPath!)).resolves.toBeUndefined();
    expect(await json(join(scratch, 'runs/fixes-both/results.json'))).toMatchObject({
      resolved_instances: 2,
      resolved_ids: ['acme__strings-1', 'acme__strings-2'],
    });
    const preds = await json<Record<string, { model_patch: string }>>(
      join(scratch, 'runs/fixes-both/preds.json'),
    );
    expect(Object.keys(preds)).toEqual(['acme__strings-1', 'acme__strings-2']);

    // Run again: everything is recorded, nothing runs twice.
    const again = evalRun('fixes-both');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('2 attempt(s) recorded, 0 interrupted (run again), 0 to run');
    expect(again.stdout).not.toMatch(/^\[/m);

    const half = evalRun('fixes-one');
    expect(half.status).toBe(0);
    expect(half.stdout).toContain('done: 1/2 task(s) resolved');
  });

  it('shows the flips and refuses the configuration that breaks half the suite', () => {
    // Two tasks: losing one has p = 0.5 in the sign test, so at the default alpha it is noise...
    const noise = caravel(scratch, ['eval', 'compare', 'runs/fixes-both', 'runs/fixes-one']);
    expect(noise.stdout).toContain('lost (1): acme__strings-2');
    expect(noise.stdout).toMatch(/gate: accept .*not significant/);
    expect(noise.status).toBe(0);
    // ...and with the threshold this tiny suite allows, the gate refuses it (exit 1).
    const gate = caravel(scratch, [
      'eval',
      'compare',
      'runs/fixes-both',
      'runs/fixes-one',
      '--alpha',
      '0.6',
      '--out',
      'comparison',
    ]);
    expect(gate.stdout).toContain('lost (1): acme__strings-2');
    expect(gate.stdout).toContain('gate: refuse');
    expect(gate.status).toBe(1);
  });

  it('refuses a configuration proposed through the dashboard API, its verdict kept with it', async () => {
    // The proposal through the API of an embedded host on the database the gate then uses.
    const data = join(scratch, 'gate');
    const token = 'e2e-dashboard-token-0123456789';
    const platform = await startEmbeddedPlatform(data, { DASHBOARD_TOKEN: token });
    let proposal: { id: string; status: string };
    try {
      const response = await fetch(`${platform.apiUrl}/api/evals/proposals`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          suite: 'tasks',
          config: 'fixes-one',
          model: 'scripted:fixes-one.yaml',
          settings: { LOG_LEVEL: 'error' },
          note: 'an agent that fixes one module',
        }),
      });
      expect(response.status).toBe(201);
      proposal = (await response.json()) as typeof proposal;
      expect(proposal.status).toBe('pending');
    } finally {
      await platform.close();
    }
    const database = ['--database-url', `pglite:${join(data, 'data', 'pgdata')}`];
    // The baseline recorded (its attempts are in its ledger: nothing runs again)...
    expect(evalRun('fixes-both', ...database).status).toBe(0);
    // ...and the proposal's run, resumed from its own ledger, refused against it.
    const gate = caravel(scratch, [
      'eval',
      'gate',
      '--suite',
      'tasks',
      '--proposal',
      proposal.id,
      '--alpha',
      '0.6',
      '--out',
      'runs/fixes-one',
      '--concurrency',
      '1',
      '--data-dir',
      'platform',
      ...database,
    ]);
    expect(gate.stdout).toContain('lost (1): acme__strings-2');
    expect(gate.stdout).toMatch(
      new RegExp(
        `proposal ${proposal.id} \\(fixes-one\\): refused against run \\S+ \\(fixes-both\\): 100\\.0% -> 50\\.0%`,
      ),
    );
    expect(gate.status).toBe(1);
    const db = await openDatabase({ url: `pglite:${join(data, 'data', 'pgdata')}` });
    try {
      expect(await new EvalProposalRepository(db.db).find(proposal.id)).toMatchObject({
        status: 'refused',
        note: 'an agent that fixes one module',
        alpha: 0.6,
        delta: -0.5,
        numbers: { lost: ['acme__strings-2'], gained: [] },
      });
    } finally {
      await db.close();
    }
  }, 120_000);

  it('refuses a suite folder with no task and a configuration with no model, in one line', () => {
    const noSuite = caravel(scratch, ['eval', 'run', 'runs', '--config', 'fixes-both.json']);
    expect(noSuite.stderr).toMatch(/^caravel eval: runs: no task in it/);
    expect(noSuite.status).toBe(1);
    const noModel = caravel(scratch, ['eval', 'run', 'tasks', '--config', 'current']);
    expect(noModel.stderr).toBe(
      'caravel eval: configuration \'current\' has no model: pass --model, give "model" in the file, or set CARAVEL_MODEL\n',
    );
    expect(noModel.status).toBe(1);
  });
});
