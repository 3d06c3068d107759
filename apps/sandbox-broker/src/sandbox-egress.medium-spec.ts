import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable, PLACEHOLDER_TOKEN, type RpcSandbox } from '@caravel/sandbox';
import { FakeGitHub, testEnvironment } from '@caravel/testing';
import { sandboxBrokerSettingsSchema } from './sandbox-broker.settings.js';
import { WorkspaceHost } from './services/workspace-host.js';
import { BrokerUnderTest, busTargets } from './testing/broker-harness.js';
import { hostGit, seedRemote } from './testing/seed-remote.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const missing = [
  ...(bwrapAvailable() ? [] : ['bubblewrap']),
  ...(existsSync('/usr/bin/socat') ? [] : ['socat']),
];
// Only outside CI may a missing tool skip the suite; in CI it must fail instead.
const skipReason =
  missing.length > 0 && !testEnvironment.CI ? `${missing.join(', ')} missing` : null;
if (skipReason) process.stdout.write(`sandbox egress suite skipped: ${skipReason}\n`);
const describeIf = skipReason ? describe.skip : describe;
const [embedded] = await busTargets(`sbe${randomBytes(4).toString('hex')}`);

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Every regular file under `dir`, as text (a token would show in any encoding-free form). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push((await readFile(path)).toString('latin1'));
  }
  return out;
}

describeIf('the agent’s own egress from a bwrap sandbox, through the broker’s proxy', () => {
  let dir: string;
  let bare: string;
  let github: FakeGitHub;
  let registry: Server;
  let hostService: ReturnType<typeof createTcpServer>;
  let hostServicePort: number;
  const registryAuth: (string | undefined)[] = [];
  let broker: BrokerUnderTest;
  let sandbox: RpcSandbox;
  const threadId = randomUUID();

  const run = async (command: string, box: RpcSandbox = sandbox) =>
    box.exec(command, { timeoutMs: 60_000 });
  const acquire = (id: string, withRepository = true) =>
    broker.client.acquire({
      threadId: id,
      branch: 'caravel/egress',
      ...(withRepository ? { repository: { owner: 'acme', name: 'widgets' } } : {}),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-egress-'));
    await chmod(dir, 0o755);
    bare = await seedRemote(join(dir, 'remotes'));
    await seedRemote(join(dir, 'remotes'), 'acme/other');
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: '7', publicKey } });
    github.addRepository('acme/widgets').addRepository('acme/other');
    await github.start();
    registry = createServer((incoming, response) => {
      registryAuth.push(incoming.headers.authorization);
      response.end(`package ${incoming.url ?? ''}\n`);
    });
    const registryPort = await listen(registry);
    hostService = createTcpServer((socket) => socket.end('host service\n'));
    hostServicePort = await listen(hostService);
    const settings = () =>
      sandboxBrokerSettingsSchema.parse({
        SANDBOX_PROVIDER: 'bwrap',
        SANDBOX_ROOT: join(dir, 'sandboxes'),
        SANDBOX_EGRESS_DIR: join(dir, 'egress'),
        SANDBOX_EGRESS_ALLOWLIST: 'registry.test',
        SANDBOX_EGRESS_MIRRORS: `registry.test=http://127.0.0.1:${registryPort}`,
        GITHUB_HOST: github.origin,
        GITHUB_API_URL: github.origin,
        GITHUB_APP_ID: '7',
        GITHUB_APP_PRIVATE_KEY: PEM,
      });
    broker = await BrokerUnderTest.start(embedded!, settings);
    sandbox = await acquire(threadId);
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await github?.close();
    registry?.close();
    hostService?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches and pushes its own repository through the proxy, the credential added outside', async () => {
    expect(sandbox.handle.origin).toBe(`${github.origin}/acme/widgets.git`);
    const fetched = await run('git fetch -q origin && git rev-parse origin/main');
    expect(fetched).toMatchObject({ exitCode: 0 });
    expect(fetched.output.trim()).toBe(hostGit(bare, 'rev-parse', 'main'));
    const pushed = await run(
      'echo from the agent > agent.txt && git add agent.txt && git commit -qm "agent push" && ' +
        'git push -q origin HEAD:refs/heads/from-sandbox',
    );
    expect(pushed).toMatchObject({ exitCode: 0, output: '' });
    expect(hostGit(bare, 'log', '-1', '--format=%s', 'from-sandbox')).toBe('agent push');
    expect(github.rejected).toEqual([]);
  });

  it('reaches an allowlisted host through the proxy, with no credential added', async () => {
    const allowed = await run('curl -sS -f http://registry.test/left-pad');
    expect(allowed).toMatchObject({ exitCode: 0, output: 'package /left-pad\n' });
    expect(registryAuth).toEqual([undefined]);
  });

  it('refuses a host off the allowlist and another repository with a message the agent sees', async () => {
    const plain = await run('curl -sS http://example.org/index.html');
    expect(plain.output).toContain('caravel egress proxy: requests to example.org are blocked');
    expect(plain.output).toContain('ask an operator to add it to the sandbox egress allowlist');
    const tunnel = await run('curl -sS https://example.org/');
    expect(tunnel.exitCode).not.toBe(0);
    expect(tunnel.output).toContain('403');
    const other = await run(`git ls-remote ${github.origin}/acme/other.git`);
    expect(other.exitCode).not.toBe(0);
    expect(other.output).toContain('403');
    const api = await run(`curl -sS ${github.origin}/repos/acme/other`);
    expect(api.output).toContain('may only use GitHub repository acme/widgets');
  });

  it('cannot reach PostgreSQL, NATS or another host service on 127.0.0.1, directly or through the proxy', async () => {
    for (const port of [5432, 4222, hostServicePort]) {
      const direct = await run(`(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo open`);
      expect(direct.output).toBe('');
      const viaProxy = await run(
        `curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/`,
      );
      expect(viaProxy.output).toBe('403');
    }
  });

  it('leaves the real token in no place inside the sandbox', async () => {
    const tokens = github.minted.map((minted) => minted.token);
    expect(tokens.length).toBeGreaterThan(0);
    const env = await run('env');
    expect(env.output).toContain(`GH_TOKEN=${PLACEHOLDER_TOKEN}`);
    expect(env.output).toContain('HTTPS_PROXY=http://127.0.0.1:3128');
    const environ = await run("for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done");
    expect(environ.output).toContain(PLACEHOLDER_TOKEN);
    const config = await run('git config --list --show-origin; cat ~/.gitconfig .git/config');
    const bound = await run('ls -A /run/caravel');
    expect(bound.output).toBe('egress.sock\n');
    const files = await filesUnder(join(dir, 'sandboxes', sandbox.id));
    expect(files.length).toBeGreaterThan(10);
    const places = [env.output, environ.output, config.output, ...files];
    const leaks = tokens.flatMap((token) => places.filter((place) => place.includes(token)));
    expect(leaks).toHaveLength(0);
  });

  it('gives a thread without a GitHub repository the allowlist but no GitHub', async () => {
    const bare = await acquire(randomUUID(), false);
    const refused = await run(`git ls-remote ${github.origin}/acme/widgets.git`, bare);
    expect(refused.exitCode).not.toBe(0);
    expect((await run('curl -sS -f http://registry.test/pip', bare)).output).toBe('package /pip\n');
  });

  it('stops a released sandbox’s proxy, and a restarted broker reopens it with the same scope', async () => {
    const egress = () => broker.host.app.get(WorkspaceHost).egress!;
    expect(egress().listening).toContain(sandbox.id);
    await broker.client.release(threadId);
    expect(egress().listening).not.toContain(sandbox.id);
    await broker.restart();
    const again = await acquire(threadId);
    expect(again.handle).toMatchObject({ outcome: 'reconnected', sandboxId: sandbox.id });
    expect(egress().listening).toEqual([sandbox.id]);
    const fetched = await run(
      'git fetch -q origin from-sandbox && git log -1 --format=%s FETCH_HEAD',
      again,
    );
    expect(fetched).toMatchObject({ exitCode: 0, output: 'agent push\n' });
  });
});
