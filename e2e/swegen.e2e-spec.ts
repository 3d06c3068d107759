import {
  buildJsBugFixFixture,
  installFakeHarbor,
  jsFixtureModelScript,
  type JsBugFixFixture,
} from '@caravel/swegen/testing';
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorkspace, repoRoot } from './support/processes.js';

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `caravel swegen ...` in `cwd` with no network-bound configuration. */
function caravel(cwd: string, args: string[], path = '/usr/local/bin:/usr/bin:/bin'): CliRun {
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'apps/cli/dist/main.js'), 'swegen', ...args],
    {
      cwd,
      encoding: 'utf8',
      env: { PATH: path, HOME: cwd },
      timeout: 240_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('caravel swegen create + validate (offline, bubblewrap)', () => {
  let fixture: JsBugFixFixture;
  let scratch: string;
  let createArgs: string[];

  beforeAll(async () => {
    buildWorkspace();
    fixture = buildJsBugFixFixture();
    scratch = await mkdtemp(join(tmpdir(), 'swegen-e2e-'));
    await chmod(scratch, 0o755);
    await writeFile(join(scratch, 'pr.json'), JSON.stringify(fixture.prJson));
    await writeFile(join(scratch, 'model.json'), jsFixtureModelScript());
    createArgs = [
      'create',
      '--repo',
      'acme/strings',
      '--pr',
      '7',
      '--repo-path',
      fixture.repo.path,
      '--pr-json',
      'pr.json',
      '--model',
      'scripted:model.json',
      '--runner',
      'bwrap',
    ];
  });

  afterAll(async () => {
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  it('creates the task from the injected PR and validates it: NOP 0, Oracle 1', async () => {
    const created = caravel(scratch, createArgs);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(
      `created: ${join(scratch, 'tasks/acme__strings-7')} (validated)`,
    );
    const task = join(scratch, 'tasks/acme__strings-7');
    expect(await readFile(join(task, 'solution/solve.sh'), 'utf8')).toBe(
      '#!/bin/bash\n\nset -euo pipefail\ncd /app/src\n\npatch -p1 < /solution/fix.patch\n',
    );
    const diff = spawnSync(
      'git',
      [
        'diff',
        fixture.forkSha,
        fixture.headSha,
        '--',
        'src/index.js',
        'src/slugify.js',
        'src/whitespace.js',
      ],
      { cwd: fixture.repo.path },
    );
    expect((await readFile(join(task, 'solution/fix.patch'))).equals(diff.stdout)).toBe(true);

    const validated = caravel(scratch, ['validate', 'tasks/acme__strings-7', '--runner', 'bwrap']);
    expect(validated.stdout).toContain('acme__strings-7: NOP=0 ORACLE=1 PASS');
    expect(validated.status).toBe(0);
  });

  it('dedupes a second create through create.jsonl', () => {
    const again = caravel(scratch, createArgs);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('already created');
  });

  it('fails validation with its own exit status when the tests pass without the fix', async () => {
    const testSh = join(scratch, 'tasks/acme__strings-7/tests/test.sh');
    const original = await readFile(testSh, 'utf8');
    await writeFile(testSh, original.replace('node --test test/slugify.test.js', 'true'));
    const run = caravel(scratch, [
      'validate',
      'tasks',
      '--runner',
      'bwrap',
      '--results',
      'results.txt',
    ]);
    await writeFile(testSh, original);
    expect(run.stdout).toContain('acme__strings-7: NOP=1 ORACLE=1 FAIL');
    expect(run.status).toBe(12);
    expect(await readFile(join(scratch, 'results.txt'), 'utf8')).toBe(
      'acme__strings-7: NOP=1 ORACLE=1 FAIL\n',
    );
  });

  it('drives Harbor when harbor is on PATH (a fake writing Harbor job results)', () => {
    const bin = join(scratch, 'bin');
    const harbor = installFakeHarbor(bin, {
      nop: { layout: 'stats', reward: 0 },
      oracle: { layout: 'stats', reward: 1 },
    });
    const path = `${bin}:/usr/local/bin:/usr/bin:/bin`;
    const passed = caravel(scratch, ['validate', 'tasks/acme__strings-7'], path);
    expect(passed.stdout).toContain('acme__strings-7: NOP=0 ORACLE=1 PASS');
    expect(passed.status).toBe(0);
    const task = join(scratch, 'tasks/acme__strings-7');
    expect(harbor.calls().map((args) => [args[2], args[4], args.slice(9)])).toEqual([
      ['nop', task, ['--env', 'docker', '--no-delete']],
      ['oracle', task, ['--env', 'docker']],
    ]);

    harbor.plan({ nop: { layout: 'stats', reward: 0 }, oracle: { layout: 'nothing' } });
    const failed = caravel(
      scratch,
      ['validate', 'tasks/acme__strings-7', '--runner', 'harbor'],
      path,
    );
    expect(failed.stdout).toMatch(
      /acme__strings-7: NOP=0 ORACLE=ERROR FAIL: Harbor wrote no job result .*harbor exited 1: Error: Cannot connect to the Docker daemon/,
    );
    expect(failed.status).toBe(12);
    const missing = caravel(scratch, ['validate', 'tasks/acme__strings-7', '--runner', 'harbor']);
    expect(missing.stderr).toBe('caravel swegen: harbor is not installed (not found on PATH)\n');
    expect(missing.status).toBe(2);
  });

  it('names each gate with a distinct exit status and one line', async () => {
    const trivial = caravel(scratch, [...createArgs, '--force', '--min-source-files', '4']);
    expect(trivial.status).toBe(10);
    expect(trivial.stderr).toBe(
      'caravel swegen: acme/strings#7 is too small or too large: 3 source files, fewer than 4\n',
    );

    const noIssue = { ...fixture.prJson, issues: [] };
    await writeFile(join(scratch, 'no-issue.json'), JSON.stringify(noIssue));
    const missing = caravel(
      scratch,
      createArgs.map((a) => (a === 'pr.json' ? 'no-issue.json' : a)),
    );
    expect(missing.status).toBe(11);
    expect(missing.stderr).toContain('links no issue');

    await rm(join(scratch, '.swegen/create.jsonl'));
    const exists = caravel(scratch, createArgs);
    expect(exists.status).toBe(13);
    expect(exists.stderr).toContain('already exists (pass --force');

    const usage = caravel(scratch, ['create', '--repo', 'not-a-repo', '--pr', '7']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toBe("caravel swegen: --repo must be owner/repo, not 'not-a-repo'\n");
  });
});
