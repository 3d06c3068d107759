import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable, PLACEHOLDER_TOKEN, type RpcSandbox, hostGit } from '@caravel/sandbox';
import {
  startEgressTargets,
  type EgressTargets,
  probeHostPort,
  secretPlaces,
  tokenLeaks,
  seedRemote,
} from '@caravel/sandbox/testing';
import { FakeGitHub, testEnvironment } from '@caravel/testing';
import { WorkspaceHost } from './services/workspace-host.js';
import { brokerConfig, BrokerUnderTest, busTargets } from './testing/broker-harness.js';

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

describeIf('the agent’s own egress from a bwrap sandbox, through the broker’s proxy', () => {
  let dir: string;
  let bare: string;
  let github: FakeGitHub;
  let targets: EgressTargets;
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
    targets = await startEgressTargets();
    const config = () =>
      brokerConfig({
        SANDBOX_PROVIDER: 'bwrap',
        SANDBOX_ROOT: join(dir, 'sandboxes'),
        SANDBOX_EGRESS_DIR: join(dir, 'egress'),
        SANDBOX_EGRESS_ALLOWLIST: 'registry.test',
        SANDBOX_EGRESS_MIRRORS: `registry.test=${targets.registryUrl}`,
        GITHUB_HOST: github.origin,
        GITHUB_API_URL: github.origin,
        GITHUB_APP_ID: '7',
        GITHUB_APP_PRIVATE_KEY: PEM,
      });
    broker = await BrokerUnderTest.start(embedded!, config);
    sandbox = await acquire(threadId);
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    await github?.close();
    await targets?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('fetches its own repository through the proxy, cannot push it, and the broker pushes for it', async () => {
    expect(sandbox.handle.origin).toBe(`${github.origin}/acme/widgets.git`);
    const fetched = await run('git fetch -q origin && git rev-parse origin/main');
    expect(fetched).toMatchObject({ exitCode: 0 });
    expect(fetched.output.trim()).toBe(await hostGit(bare, ['rev-parse', 'main']));
    const pushed = await run(
      'echo from the agent > agent.txt && git add agent.txt && git commit -qm "agent push" && ' +
        'git push -q origin HEAD:refs/heads/from-sandbox',
    );
    expect(pushed.exitCode).not.toBe(0);
    expect(pushed.output).toContain('may read GitHub repository acme/widgets but not write to it');
    const approve = await run(
      `curl -sS -X POST -d '{"event":"APPROVE"}' ${github.origin}/repos/acme/widgets/pulls/1/reviews`,
    );
    expect(approve.output).toContain('POST /repos/acme/widgets/pulls/1/reviews was refused');
    expect(await hostGit(bare, ['branch', '--list', 'from-sandbox'])).toBe('');
    await broker.client.push({
      threadId,
      branch: 'caravel/egress',
      repository: { owner: 'acme', name: 'widgets' },
    });
    expect(await hostGit(bare, ['log', '-1', '--format=%s', 'caravel/egress'])).toBe('agent push');
    expect(github.rejected).toEqual([]);
  });

  it('reaches an allowlisted host through the proxy, with no credential added', async () => {
    const allowed = await run('curl -sS -f http://registry.test/left-pad');
    expect(allowed).toMatchObject({ exitCode: 0, output: 'package /left-pad\n' });
    expect(targets.registryAuth).toEqual([undefined]);
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
    for (const port of [5432, 4222, targets.hostServicePort]) {
      expect(await probeHostPort(run, port)).toEqual({ direct: '', viaProxy: '403' });
    }
  });

  it('leaves the real token in no place inside the sandbox', async () => {
    const tokens = github.minted.map((minted) => minted.token);
    expect(tokens.length).toBeGreaterThan(0);
    const places = await secretPlaces(
      (command) => run(command),
      join(dir, 'sandboxes', sandbox.id),
    );
    expect(places.env).toContain(`GH_TOKEN=${PLACEHOLDER_TOKEN}`);
    expect(places.env).toContain('HTTPS_PROXY=http://127.0.0.1:3128');
    expect(places.environ).toContain(PLACEHOLDER_TOKEN);
    expect(places.gitConfig).toContain('remote.origin.url');
    expect(places.files.length).toBeGreaterThan(10);
    expect(tokenLeaks(tokens, places)).toEqual([]);
    expect((await run('ls -A /run/caravel')).output).toBe('egress.sock\n');
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
      'git fetch -q origin caravel/egress && git log -1 --format=%s FETCH_HEAD',
      again,
    );
    expect(fetched).toMatchObject({ exitCode: 0, output: 'agent push\n' });
  });
});
