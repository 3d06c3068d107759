import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installFakeHarbor, type FakeHarbor } from '../testing/fake-harbor.js';
import { validateTasks } from './validate-tasks.js';
import { summaryLine } from './validation-result.js';

let scratch: string;
let bin: string;
let task: string;
let harbor: FakeHarbor;

async function writeTask(dir: string): Promise<void> {
  const files: Record<string, string> = {
    'task.toml': 'schema_version = "1.3"\n',
    'instruction.md': 'Slugs keep their dashes.\n',
    'environment/Dockerfile': 'FROM ubuntu:24.04\n',
    'tests/test.sh': '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n',
    'solution/solve.sh': '#!/bin/bash\npatch -p1 < /solution/fix.patch\n',
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'swegen-harbor-'));
  bin = join(scratch, 'bin');
  task = join(scratch, 'tasks', 'acme__strings-7');
  await writeTask(task);
  harbor = installFakeHarbor(bin, {
    nop: { layout: 'stats', reward: 0 },
    oracle: { layout: 'stats', reward: 1 },
  });
});

afterEach(async () => rm(scratch, { recursive: true, force: true }));

const validate = (runner: 'auto' | 'harbor' | 'bwrap' = 'auto', searchPath = `${bin}:/usr/bin`) =>
  validateTasks(task, { stateDir: join(scratch, '.swegen'), runner, searchPath });

describe('validation through Harbor (a fake harbor on PATH)', () => {
  it('runs harbor with the NOP agent, then the Oracle, and reads the rewards from the job layout', async () => {
    const [result] = await validate();
    expect(result).toMatchObject({ runner: 'harbor', passed: true });
    expect(result!.nop).toMatchObject({ reward: 0 });
    expect(result!.oracle).toMatchObject({ reward: 1 });
    const jobs = join(scratch, '.swegen', 'jobs', 'acme__strings-7', 'harbor');
    const [nop, oracle] = harbor.calls();
    const nopJob = nop![nop!.indexOf('--job-name') + 1]!;
    const oracleJob = oracle![oracle!.indexOf('--job-name') + 1]!;
    expect(nop).toEqual(
      ['run', '--agent', 'nop', '-p', task, '--jobs-dir', jobs, '--job-name', nopJob].concat([
        '--env',
        'docker',
        '--no-delete',
      ]),
    );
    expect(oracle).toEqual(
      ['run', '--agent', 'oracle', '-p', task, '--jobs-dir', jobs, '--job-name', oracleJob].concat([
        '--env',
        'docker',
      ]),
    );
    expect(harbor.calls()).toHaveLength(2);
    expect(result!.nop.logDir).toBe(join(jobs, nopJob));
    expect(await readdir(join(jobs, oracleJob))).toEqual(
      expect.arrayContaining(['result.json', 'config.json', 'acme__strings-7__Xk3Pq9a']),
    );
  });

  it("falls back to the trial directory's result.json when the job result has no reward bucket", async () => {
    harbor.plan({
      nop: { layout: 'trial-dir', reward: 0 },
      oracle: { layout: 'trial-dir', reward: 1 },
    });
    const [result] = await validate('harbor');
    expect(result).toMatchObject({ passed: true, nop: { reward: 0 }, oracle: { reward: 1 } });
  });

  it('fails the task with the reason when harbor wrote no job result or a garbled one', async () => {
    harbor.plan({ nop: { layout: 'nothing' }, oracle: { layout: 'garbled' } });
    const [result] = await validate();
    expect(result!.passed).toBe(false);
    expect(result!.nop.reward).toBeNull();
    expect(result!.nop.error).toMatch(
      /^Harbor wrote no job result \(.*\/nop-\d+\/result\.json\); harbor exited 1: Error: Cannot connect to the Docker daemon \(/,
    );
    expect(result!.oracle.error).toMatch(
      /^Harbor's job result .*\/oracle-\d+\/result\.json is not JSON$/,
    );
    expect(summaryLine(result!)).toMatch(
      /^acme__strings-7: NOP=ERROR ORACLE=ERROR FAIL: Harbor wrote/,
    );
  });

  it("reports the trial's exception when the verifier found no reward", async () => {
    harbor.plan({ nop: { layout: 'stats', reward: 0 }, oracle: { layout: 'exception' } });
    const [result] = await validate();
    expect(result).toMatchObject({ passed: false, nop: { reward: 0 } });
    expect(result!.oracle).toMatchObject({
      reward: null,
      error:
        'the Harbor trial failed: RewardFileNotFoundError: No reward file found at /logs/verifier/reward.txt',
    });
  });

  it('refuses --runner harbor when harbor is not on PATH, and --runner bwrap never calls it', async () => {
    await expect(validate('harbor', '/usr/bin')).rejects.toMatchObject({
      details: { reason: 'invalid_input' },
      message: 'harbor is not installed (not found on PATH)',
    });
    const [host] = await validate('bwrap');
    expect(host).toMatchObject({ runner: 'bwrap-host', passed: false });
    expect(host!.nop.error).toContain('no local clone');
    expect(harbor.calls()).toEqual([]);
    expect(existsSync(join(scratch, '.swegen', 'jobs', 'acme__strings-7', 'harbor'))).toBe(false);
  });

  it('says in one line what to install when neither Harbor nor bubblewrap is there', async () => {
    const stateDir = join(scratch, '.swegen');
    const missing = join(scratch, 'no-bwrap');
    await expect(
      validateTasks(task, { stateDir, runner: 'auto', searchPath: '/usr/bin', bwrapPath: missing }),
    ).rejects.toMatchObject({
      details: { reason: 'invalid_input' },
      message: `cannot validate: bubblewrap is not installed (${missing}); apt-get install bubblewrap, or install Harbor (harbor on PATH)`,
    });
    await expect(
      validateTasks(task, { stateDir, runner: 'bwrap', bwrapPath: missing }),
    ).rejects.toThrow(
      /^cannot validate: bubblewrap is not installed \([^)]*\); apt-get install bubblewrap$/,
    );
  });
});
