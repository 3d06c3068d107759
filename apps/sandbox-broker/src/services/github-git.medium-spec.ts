import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit, type Sandbox } from '@caravel/sandbox';
import { seedRemote } from '@caravel/sandbox/testing';
import { DEFAULT_INSTALLATION_PERMISSIONS, FakeGitHub } from '@caravel/testing';
import { WorkspaceHost } from './workspace-host.js';
import { brokerConfig } from '../testing/broker-harness.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const WIDGETS = { owner: 'acme', name: 'widgets' };

describe('the broker clones and pushes GitHub repositories through the credential proxy', () => {
  let dir: string;
  let bare: string;
  let other: string;
  let github: FakeGitHub;
  const opened: Sandbox[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-github-git-'));
    await chmod(dir, 0o755);
    bare = await seedRemote(join(dir, 'remotes'));
    other = await seedRemote(join(dir, 'remotes'), 'acme/other', 'other\n');
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: '7', publicKey } });
    github.addRepository('acme/widgets').addRepository('acme/other');
    await github.start();
  });

  afterAll(async () => {
    await Promise.all(opened.map((sandbox) => sandbox.close()));
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  const hostWith = (app: boolean): WorkspaceHost =>
    new WorkspaceHost(
      brokerConfig({
        SANDBOX_PROVIDER: 'local',
        SANDBOX_ROOT: join(dir, 'sandboxes'),
        GITHUB_HOST: github.origin,
        GITHUB_API_URL: github.origin,
        ...(app ? { GITHUB_APP_ID: '7', GITHUB_APP_PRIVATE_KEY: PEM } : {}),
      }),
      { warn: () => undefined },
    );

  /** A sandbox set up for acme/widgets, as the broker would make it. */
  async function setUp(host: WorkspaceHost, id: string, branch = 'caravel/t1'): Promise<Sandbox> {
    const sandbox = await host.provider.create({ id });
    opened.push(sandbox);
    await host.setupFor({ branch, repository: WIDGETS })(sandbox);
    return sandbox;
  }

  async function commitInside(sandbox: Sandbox, file: string): Promise<string> {
    const made = await sandbox.exec(
      `echo fixed > ${file} && git add ${file} && git commit --quiet -m fix && git rev-parse HEAD`,
    );
    expect(made.exitCode).toBe(0);
    return made.output.trim();
  }

  it('clones with an installation token and pushes the branch, the token never on disk', async () => {
    const host = hostWith(true);
    const sandbox = await setUp(host, 'sbx-app');
    expect(await sandbox.readFile('README.md')).toBe('widgets\n');
    const head = await commitInside(sandbox, 'fix.txt');

    await expect(host.push('sbx-app', 'caravel/t1', WIDGETS)).resolves.toEqual({
      pushed: true,
      origin: `${github.origin}/acme/widgets.git`,
      commit: head,
    });

    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/t1'])).toBe(head);
    expect(github.rejected).toEqual([]);
    expect(github.minted.length).toBeGreaterThan(0);
    const configs = [
      await readFile(join(host.hostWorkdir('sbx-app'), '.git', 'config'), 'utf8'),
      await readFile(join(host.mirrors.of('sbx-app').path, 'config'), 'utf8'),
    ];
    for (const { token } of github.minted) {
      expect(github.accepted).toContain(token);
      for (const config of configs) expect(config).not.toContain(token);
    }
  });

  /** A fork of acme/widgets on disk (made once) with one commit adding `file` on `branch`. */
  async function forkWithCommit(branch: string, file: string): Promise<string> {
    const fork = join(dir, 'forks', 'someone', 'widgets.git');
    await mkdir(join(fork, '..'), { recursive: true });
    await hostGit(dir, ['clone', '--quiet', '--bare', bare, fork]).catch(() => '');
    const work = await mkdtemp(join(dir, 'fork-work-'));
    await hostGit(work, ['clone', '--quiet', fork, '.']);
    await mkdir(join(work, file, '..'), { recursive: true });
    await writeFile(join(work, file), 'from the fork\n');
    await hostGit(work, ['checkout', '--quiet', '-b', branch]);
    await hostGit(work, ['add', file]);
    await hostGit(work, ['-c', 'user.name=f', '-c', 'user.email=f@f', 'commit', '-qm', 'Fork']);
    await hostGit(work, ['push', '--quiet', 'origin', branch]);
    return fork;
  }

  const forkPull = (number: number, head: string) => ({
    number,
    head,
    title: 'From a fork',
    body: '',
    draft: false,
    state: 'open' as const,
    base: 'main',
    requestedReviewers: [],
    headRepository: 'someone/widgets',
  });

  /** A sandbox set up on `branch` at fork pull request `number`'s head (`patch-<number>`). */
  async function setUpAtFork(host: WorkspaceHost, id: string, branch: string, number: number) {
    const fork = await forkWithCommit(`patch-${number}`, 'fork.txt');
    const forkHead = github.openForkPull('acme/widgets', forkPull(number, `patch-${number}`), {
      path: fork,
    });
    const sandbox = await host.provider.create({ id });
    opened.push(sandbox);
    await host.setupFor({ branch, repository: WIDGETS, startRef: `refs/pull/${number}/head` })(
      sandbox,
    );
    return { fork, forkHead, sandbox };
  }

  it("starts the thread's branch at a fork's pull request head the repository keeps, and pushes it here", async () => {
    const host = hostWith(true);
    const { fork, forkHead, sandbox } = await setUpAtFork(host, 'sbx-fork', 'caravel/f1', 5);

    expect((await sandbox.exec('git rev-parse HEAD')).output.trim()).toBe(forkHead);
    expect((await sandbox.exec('git branch --show-current')).output.trim()).toBe('caravel/f1');
    expect(await sandbox.readFile('fork.txt')).toBe('from the fork\n');
    // The fetched start is the branch's, not a ref left behind for the agent.
    expect((await sandbox.exec('git for-each-ref refs/caravel')).output.trim()).toBe('');
    const head = await commitInside(sandbox, 'fix.txt');
    await host.push('sbx-fork', 'caravel/f1', WIDGETS);

    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/f1'])).toBe(head);
    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/f1^'])).toBe(forkHead);
    expect(await hostGit(fork, ['rev-parse', 'refs/heads/patch-5'])).toBe(forkHead);
    expect(github.rejected).toEqual([]);
  });

  it("refuses to push CI definitions from a sandbox started at a fork's head, whoever committed them", async () => {
    // The sandbox holds the fork's files: an agent they misled can write the workflow itself.
    const host = hostWith(true);
    const { sandbox } = await setUpAtFork(host, 'sbx-fork-ci', 'caravel/f4', 8);
    await sandbox.exec('mkdir -p .github/actions/setup');
    await commitInside(sandbox, '.github/actions/setup/action.yml');

    await expect(host.push('sbx-fork-ci', 'caravel/f4', WIDGETS)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'push_changes_ci', paths: ['.github/actions/setup/action.yml'] },
    });
    await expect(
      hostGit(bare, ['rev-parse', '--verify', 'refs/heads/caravel/f4']),
    ).rejects.toThrow();

    // Taken out of its commits, the branch pushes; a sandbox started at the repository's own branch may
    // change its CI (a person asked for it there) once the App may change workflows.
    await sandbox.exec('git reset -q --hard HEAD~1');
    await host.push('sbx-fork-ci', 'caravel/f4', WIDGETS);
    github.grant({ ...DEFAULT_INSTALLATION_PERMISSIONS, workflows: 'write' });
    const granted = hostWith(true);
    const own = await setUp(granted, 'sbx-own-ci');
    await own.exec('mkdir -p .github/workflows');
    const head = await commitInside(own, '.github/workflows/ci.yml');
    await granted.push('sbx-own-ci', 'caravel/t1', WIDGETS).finally(() => {
      github.grant(DEFAULT_INSTALLATION_PERMISSIONS);
    });
    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/t1'])).toBe(head);
  });

  it('says plainly that GitHub refused a workflow change from an App without the permission, and pushes it once the App is granted it', async () => {
    const host = hostWith(true);
    const sandbox = await setUp(host, 'sbx-workflows', 'caravel/w1');
    await sandbox.exec('mkdir -p .github/workflows');
    await commitInside(sandbox, '.github/workflows/ci.yml');
    const head = await commitInside(sandbox, '.github/workflows/lint.yml');

    const refused = await host
      .push('sbx-workflows', 'caravel/w1', WIDGETS)
      .catch((e: unknown) => e);

    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      retryable: false,
      details: {
        reason: 'workflow_permission',
        paths: ['.github/workflows/ci.yml', '.github/workflows/lint.yml'],
      },
    });
    expect((refused as Error).message).toMatch(
      /^GitHub refused the push because it changes workflow files \(\.github\/workflows\/ci\.yml, \.github\/workflows\/lint\.yml\) and Caravel's GitHub App may not change workflow files/,
    );
    expect((refused as Error).message).not.toMatch(/remote rejected|x-access-token|ghs_/);
    await expect(
      hostGit(bare, ['rev-parse', '--verify', 'refs/heads/caravel/w1']),
    ).rejects.toThrow();

    // An admin grants the permission: the next push mints a token that carries it.
    github.grant({ ...DEFAULT_INSTALLATION_PERMISSIONS, workflows: 'write' });
    await host.push('sbx-workflows', 'caravel/w1', WIDGETS).finally(() => {
      github.grant(DEFAULT_INSTALLATION_PERMISSIONS);
    });
    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/w1'])).toBe(head);
  });

  it('fails a setup clearly for a pull request head the repository lacks or whose commits change its CI, and takes no other ref', async () => {
    const host = hostWith(true);
    const sandbox = await host.provider.create({ id: 'sbx-no-pull' });
    opened.push(sandbox);
    await expect(
      host.setupFor({ branch: 'caravel/f2', repository: WIDGETS, startRef: 'refs/pull/99/head' })(
        sandbox,
      ),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/^refs\/pull\/99\/head could not be fetched/),
      details: { reason: 'start_ref_unavailable', ref: 'refs/pull/99/head' },
    });
    // A fork whose commits change the CI: pushed here, its workflow would run with the secrets.
    const fork = await forkWithCommit('ci-1', '.github/workflows/steal.yml');
    github.openForkPull('acme/widgets', forkPull(6, 'ci-1'), { path: fork });
    const other = await host.provider.create({ id: 'sbx-ci' });
    opened.push(other);
    await expect(
      host.setupFor({ branch: 'caravel/f3', repository: WIDGETS, startRef: 'refs/pull/6/head' })(
        other,
      ),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'start_ref_changes_ci', paths: ['.github/workflows/steal.yml'] },
    });
    const mirror = host.mirrors.of('sbx-no-pull');
    await expect(mirror.fetchStart(bare, 'refs/heads/main')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      mirror.fetchStart(bare, '+refs/pull/5/head:refs/heads/main'),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it("pushes to the thread's repository on record, whatever remote the workdir names", async () => {
    const host = hostWith(true);
    const sandbox = await setUp(host, 'sbx-redirect');
    await sandbox.exec(`git remote set-url origin ${github.origin}/acme/other.git`);
    await sandbox.exec(`git remote add elsewhere ${other}`);
    const head = await commitInside(sandbox, 'redirected.txt');

    await host.push('sbx-redirect', 'caravel/t1', WIDGETS);

    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/t1'])).toBe(head);
    await expect(
      hostGit(other, ['rev-parse', '--verify', 'refs/heads/caravel/t1']),
    ).rejects.toThrow(/failed/);
  });

  it('without the App, refuses to set up a GitHub repository it cannot clone, naming what is missing', async () => {
    const host = hostWith(false);
    const sandbox = await host.provider.create({ id: 'sbx-no-app' });
    opened.push(sandbox);
    await expect(
      host.setupFor({ branch: 'caravel/t1', repository: WIDGETS })(sandbox),
    ).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringMatching(/GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/),
      details: { reason: 'repository_unavailable' },
    });
    await expect(host.push('sbx-no-app', 'caravel/t1', WIDGETS)).resolves.toEqual({
      pushed: false,
      origin: null,
      commit: null,
    });
  });
});
