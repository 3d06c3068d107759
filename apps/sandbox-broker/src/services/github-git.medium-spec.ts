import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit, type Sandbox } from '@caravel/sandbox';
import { seedRemote } from '@caravel/sandbox/testing';
import { FakeGitHub } from '@caravel/testing';
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
  async function setUp(host: WorkspaceHost, id: string): Promise<Sandbox> {
    const sandbox = await host.provider.create({ id });
    opened.push(sandbox);
    await host.setupFor({ branch: 'caravel/t1', repository: WIDGETS })(sandbox);
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
