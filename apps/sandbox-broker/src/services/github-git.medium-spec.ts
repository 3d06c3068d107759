import { generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit, seedRemote, type Sandbox } from '@caravel/sandbox';
import { FakeGitHub } from '@caravel/testing';
import { sandboxBrokerSettingsSchema } from '../sandbox-broker.settings.js';
import { WorkspaceHost } from './workspace-host.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('the broker clones and pushes GitHub repositories through the credential proxy', () => {
  let dir: string;
  let bare: string;
  let github: FakeGitHub;
  const warnings: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-github-git-'));
    bare = await seedRemote(join(dir, 'remotes'));
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: '7', publicKey } });
    github.addRepository('acme/widgets').addRepository('acme/other');
    await github.start();
  });

  afterAll(async () => {
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  const hostWith = (app: boolean): WorkspaceHost =>
    new WorkspaceHost(
      sandboxBrokerSettingsSchema.parse({
        SANDBOX_PROVIDER: 'local',
        SANDBOX_ROOT: join(dir, 'sandboxes'),
        GITHUB_HOST: github.origin,
        GITHUB_API_URL: github.origin,
        ...(app ? { GITHUB_APP_ID: '7', GITHUB_APP_PRIVATE_KEY: PEM } : {}),
      }),
      { warn: (message) => void warnings.push(message) },
    );

  async function setUp(host: WorkspaceHost, id: string): Promise<string> {
    const workdir = host.hostWorkdir(id);
    await mkdir(workdir, { recursive: true });
    const setup = host.setupFor({
      branch: 'caravel/t1',
      repository: { owner: 'acme', name: 'widgets' },
    });
    await setup(Object.freeze({ id }) as Sandbox);
    return workdir;
  }

  it('clones with an installation token and pushes the branch, the token never on disk', async () => {
    const host = hostWith(true);
    const workdir = await setUp(host, 'sbx-app');
    expect(await readFile(join(workdir, 'README.md'), 'utf8')).toBe('widgets\n');
    await writeFile(join(workdir, 'fix.txt'), 'fixed\n');
    await hostGit(workdir, ['add', '.']);
    await hostGit(workdir, ['commit', '--quiet', '-m', 'fix']);
    const head = await hostGit(workdir, ['rev-parse', 'HEAD']);

    await expect(host.push('sbx-app', 'caravel/t1')).resolves.toEqual({
      pushed: true,
      origin: `${github.origin}/acme/widgets.git`,
    });

    expect(await hostGit(bare, ['rev-parse', 'refs/heads/caravel/t1'])).toBe(head);
    expect(github.rejected).toEqual([]);
    expect(github.minted.length).toBeGreaterThan(0);
    const config = await readFile(join(workdir, '.git', 'config'), 'utf8');
    for (const { token } of github.minted) {
      expect(github.accepted).toContain(token);
      expect(config).not.toContain(token);
    }
  });

  it('without the App, warns that the clone is skipped, and a push to GitHub fails with a coded error', async () => {
    const host = hostWith(false);
    const workdir = await setUp(host, 'sbx-bare');
    expect(warnings.join('\n')).toMatch(/acme\/widgets starts from an empty workspace/);
    await hostGit(workdir, ['remote', 'add', 'origin', `${github.origin}/acme/widgets.git`]);

    await expect(host.push('sbx-bare', 'caravel/t1')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringMatching(/git push failed/),
    });
    expect(github.rejected.length).toBeGreaterThan(0);
  });
});
