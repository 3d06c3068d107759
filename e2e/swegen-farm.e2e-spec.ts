import { FarmState } from '@caravel/swegen';
import {
  buildDatasetRepo,
  buildFarmFixture,
  farmModelScript,
  type FarmFixture,
} from '@caravel/swegen/testing';
import { FakeGitHub } from '@caravel/testing';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWorkspace, repoRoot } from './support/processes.js';

const TOKEN = 'ghp_e2efarm';
const STATE_BRANCH = 'farm-state/acme__strings';

interface Farm {
  readonly child: ChildProcess;
  readonly out: string[];
  readonly exit: Promise<number | null>;
}

/** Starts the built `caravel swegen farm` (asynchronously: the fake GitHub lives in this process). */
function farm(cwd: string, origin: string, extra: string[] = []): Farm {
  return swegen(cwd, origin, ['farm', 'acme/strings', '--per-page', '2', ...extra]);
}

/** Starts the built `caravel swegen <args>` publishing to data/tasks with the scripted model. */
function swegen(cwd: string, origin: string, args: string[]): Farm {
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'apps/cli/dist/main.js'),
      'swegen',
      ...args,
      '--model',
      'scripted:model.json',
      '--sandbox',
      'local',
      '--no-validate',
      '--publish-repo',
      'data/tasks',
    ],
    {
      cwd,
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: cwd,
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: origin,
      },
    },
  );
  const out: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out, exit };
}

/** Polls until `condition` holds (the verdict never depends on how long that takes). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 50));
}

describe('caravel swegen farm --publish-repo (fake GitHub, bare dataset repository)', () => {
  let fixture: FarmFixture;
  let scratch: string;
  let fake: FakeGitHub;
  let bare: string;

  beforeAll(async () => {
    buildWorkspace();
    scratch = await mkdtemp(join(tmpdir(), 'swegen-farm-e2e-'));
    await chmod(scratch, 0o755);
    fixture = buildFarmFixture([
      { number: 1 },
      { number: 2, linkIssue: false },
      { number: 3 },
      { number: 6 },
    ]);
    fake = new FakeGitHub({ root: join(scratch, 'git') }).addUserToken(TOKEN, 'farmer');
    for (const pull of fixture.pulls) fake.addSourcePull('acme/strings', pull);
    for (const issue of fixture.issues) fake.addSourceIssue('acme/strings', issue);
    bare = buildDatasetRepo(join(scratch, 'git'), 'data/tasks');
    await fake.start();
    await writeFile(join(scratch, 'model.json'), farmModelScript(10));
  });

  afterAll(async () => {
    await fake.close();
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  const remoteState = (): FarmState =>
    FarmState.fromJSON(
      JSON.parse(
        execFileSync('git', ['show', `${STATE_BRANCH}:state/acme__strings.json`], {
          cwd: bare,
          encoding: 'utf8',
        }),
      ) as unknown,
    );
  const detailCalls = (pr: number): number =>
    fake
      .callsTo({ method: 'GET', path: `/repos/acme/strings/pulls/${pr}` })
      .filter((c) => c.path.endsWith(`/pulls/${pr}`)).length;

  it('resumes after a kill without redoing the published PR', async () => {
    let release = (): void => undefined;
    fake.state.source.holds.set(3, new Promise<void>((r) => (release = r)));
    const killed = farm(scratch, fake.origin);
    await until(() => detailCalls(3) > 0);
    killed.child.kill('SIGKILL');
    expect(await killed.exit).toBeNull();
    release();
    fake.state.source.holds.delete(3);
    expect(remoteState().toJSON()).toMatchObject({ processed_prs: [6], successful: 1 });

    const resumed = farm(scratch, fake.origin);
    expect(await resumed.exit).toBe(0);
    const text = resumed.out.join('');
    expect(text).not.toMatch(/#6 /);
    expect(text).toMatch(/farm completed/);
    expect(remoteState().toJSON()).toMatchObject({
      processed_prs: [1, 2, 3, 6],
      successful: 3,
      no_issue_prs: [2],
    });
    const heads = (fake.state.pulls.get('data/tasks') ?? []).map((p) => p.head).sort();
    expect(heads).toEqual(['task/acme__strings-1', 'task/acme__strings-3', 'task/acme__strings-6']);
  }, 240_000);

  it('finishes and saves on SIGTERM, exiting 130', async () => {
    let release = (): void => undefined;
    fake.state.source.holds.set(3, new Promise<void>((r) => (release = r)));
    const before = detailCalls(3);
    const stopped = farm(scratch, fake.origin, ['--reset', '--state-dir', '.swegen-term']);
    await until(() => detailCalls(3) > before);
    stopped.child.kill('SIGTERM');
    await until(() => stopped.out.join('').includes('SIGTERM: finishing'));
    release();
    fake.state.source.holds.delete(3);
    expect(await stopped.exit).toBe(130);
    expect(remoteState().lastRun).toMatchObject({ outcome: 'interrupted' });
    expect(remoteState().toJSON()).toMatchObject({ processed_prs: [6] });
  }, 240_000);

  it('exits 15 when the token reports push: false', async () => {
    fake.setPermissions('data/tasks', { pull: true, push: false });
    const refused = farm(scratch, fake.origin, ['--state-dir', '.swegen-auth']);
    expect(await refused.exit).toBe(15);
    expect(refused.out.join('')).toMatch(/no push access to data\/tasks/);

    const create = swegen(scratch, fake.origin, [
      'create',
      '--repo',
      'acme/strings',
      '--pr',
      '1',
      '--state-dir',
      '.swegen-create',
      '--tasks-dir',
      'tasks-create',
    ]);
    expect(await create.exit).toBe(15);
    expect(create.out.join('')).toMatch(/no push access to data\/tasks/);
    // Refused before any generation: no repository cache, no task, no record.
    expect(existsSync(join(scratch, '.swegen-create', 'repos'))).toBe(false);
    expect(existsSync(join(scratch, '.swegen-create', 'create.jsonl'))).toBe(false);
    expect(existsSync(join(scratch, 'tasks-create'))).toBe(false);
  }, 60_000);
});
