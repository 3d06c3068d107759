import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGitHub, testEnvironment } from '@caravel/testing';
import { applyBotIdentity } from '../git/git-script.js';
import { BwrapSandboxProvider, bwrapAvailable } from '../providers/bwrap.provider.js';
import type { Sandbox } from '../sandbox.types.js';
import {
  startEgressTargets,
  type EgressTargets,
  probeHostPort,
  secretPlaces,
  tokenLeaks,
} from '../testing/egress-probes.js';
import { EgressProxy } from './egress-proxy.js';
import { PLACEHOLDER_TOKEN } from './sandbox-egress.js';
import { RefreshingTokenSource } from './token-source.js';

const missing = !bwrapAvailable() || !execFileSync('sh', ['-c', 'command -v socat || true']).length;
const describeIf = missing && !testEnvironment.CI ? describe.skip : describe;
const MINUTE = 60_000;

function git(args: string[], cwd?: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function bareRepository(root: string, repository: string): Promise<string> {
  const bare = join(root, `${repository}.git`);
  const seed = await mkdtemp(join(tmpdir(), 'caravel-seed-'));
  git(['init', '-q', '--bare', '-b', 'main', bare]);
  git(['-C', bare, 'config', 'http.receivepack', 'true']);
  git(['init', '-q', '-b', 'main', seed]);
  execFileSync('sh', ['-c', 'echo "# widgets" > README.md'], { cwd: seed });
  git(
    ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'seed'],
    seed,
  );
  git(['add', '.'], seed);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'readme'], seed);
  git(['push', '-q', bare, 'main'], seed);
  await rm(seed, { recursive: true, force: true });
  return bare;
}

describeIf('egress proxy with a bwrap sandbox and a fake GitHub', () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  let root: string;
  let bare: string;
  let github: FakeGitHub;
  let proxy: EgressProxy;
  let targets: EgressTargets;
  let provider: BwrapSandboxProvider;
  let sandbox: Sandbox;

  const run = async (command: string) => sandbox.exec(command, { timeoutMs: 60_000 });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-egress-'));
    const socketDir = join(root, 'egress');
    await mkdir(join(root, 'sandboxes'));
    await mkdir(socketDir);
    await chmod(root, 0o755);
    await chmod(join(root, 'sandboxes'), 0o755);
    await chmod(socketDir, 0o755);
    bare = await bareRepository(join(root, 'github'), 'acme/widgets');
    await bareRepository(join(root, 'github'), 'acme/other');
    github = new FakeGitHub({
      root: join(root, 'github'),
      now: () => now,
      tokenTtlMs: 10 * MINUTE,
    });
    const upstream = await github.start();
    targets = await startEgressTargets();
    proxy = new EgressProxy({
      github: {
        gitHost: 'github.test',
        apiHost: 'api.github.test',
        gitUpstream: upstream,
        apiUpstream: upstream,
      },
      repository: 'acme/widgets',
      allowlist: ['registry.test'],
      upstreamOverrides: { 'registry.test': targets.registryUrl },
      tokenSource: new RefreshingTokenSource({
        repository: 'acme/widgets',
        mint: github.mint,
        now: () => now,
        refreshMarginMs: 5 * MINUTE,
      }),
    });
    await proxy.listen({ socketPath: join(socketDir, 'egress.sock') });
    provider = new BwrapSandboxProvider({
      rootDir: join(root, 'sandboxes'),
      egressProxy: {
        gitHost: 'github.test',
        apiHost: 'api.github.test',
        socketDir: () => socketDir,
      },
    });
    sandbox = await provider.create();
    await applyBotIdentity(sandbox, { name: 'caravel-bot', email: 'bot@caravel.test' });
  });

  afterAll(async () => {
    await sandbox?.close();
    await proxy?.close();
    await github?.close();
    await targets?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('clones and reads the API through the proxy, and can neither push nor write the API', async () => {
    const clone = await run('git clone -q https://github.test/acme/widgets.git repo');
    expect(clone).toMatchObject({ exitCode: 0 });
    const before = git(['--git-dir', bare, 'rev-parse', 'main']).trim();
    const push = await run(
      'cd repo && echo change > change.txt && git add . && git commit -qm "from the sandbox" && git push -q origin HEAD:main; s=$?; cd ..; exit $s',
    );
    expect(push.exitCode).not.toBe(0);
    expect(push.output).toContain('may read GitHub repository acme/widgets but not write to it');
    expect(git(['--git-dir', bare, 'rev-parse', 'main']).trim()).toBe(before);
    const api = await run(
      `curl -sS -f -H 'Authorization: Bearer ${PLACEHOLDER_TOKEN}' http://api.github.test/repos/acme/widgets`,
    );
    expect(api.output).toContain('"full_name":"acme/widgets"');
    const write = await run(
      `curl -sS -X POST -d '{"event":"APPROVE"}' http://api.github.test/repos/acme/widgets/pulls/1/reviews`,
    );
    expect(write.output).toContain('POST /repos/acme/widgets/pulls/1/reviews was refused');
    expect(github.rejected).toEqual([]);
  });

  it('leaves the real token in no place the sandbox can see', async () => {
    const tokens = github.minted.map((minted) => minted.token);
    expect(tokens.length).toBeGreaterThan(0);
    const places = await secretPlaces(run, join(root, 'sandboxes', sandbox.id), 'repo');
    expect(places.env).toContain(`GH_TOKEN=${PLACEHOLDER_TOKEN}`);
    expect(places.environ).toContain(PLACEHOLDER_TOKEN);
    expect(places.files.length).toBeGreaterThan(10);
    expect(tokenLeaks(tokens, places)).toEqual([]);
  });

  it('cannot reach host services on 127.0.0.1, directly or through the proxy', async () => {
    for (const port of [5432, 4222, targets.hostServicePort]) {
      expect(await probeHostPort(run, port)).toEqual({ direct: '', viaProxy: '403' });
    }
  });

  it('refuses a host off the allowlist with a message the agent can act on', async () => {
    const plain = await run('curl -sS http://example.org/index.html');
    expect(plain.output).toContain('requests to example.org are blocked');
    expect(plain.output).toContain('egress allowlist');
    const tunnel = await run('curl -sS https://example.org/');
    expect(tunnel.exitCode).not.toBe(0);
    expect(tunnel.output).toContain('403');
    const allowed = await run(
      `curl -sS -f -H 'Authorization: Bearer ${PLACEHOLDER_TOKEN}' http://registry.test/left-pad`,
    );
    expect(allowed.output).toBe('package /left-pad\n');
    expect(targets.registryAuth).toEqual([`Bearer ${PLACEHOLDER_TOKEN}`]);
  });

  it('refuses another repository, over git and over the API', async () => {
    const clone = await run('git clone -q https://github.test/acme/other.git other');
    expect(clone.exitCode).not.toBe(0);
    expect(clone.output).toContain('403');
    const api = await run('curl -sS http://api.github.test/repos/acme/other');
    expect(api.output).toContain('may only use GitHub repository acme/widgets');
    expect(github.accepted.length).toBeGreaterThan(0);
    expect(github.rejected).toEqual([]);
  });

  it('refreshes a token that expires mid-run, and the next fetch works', async () => {
    const mintedBefore = github.minted.length;
    const oldToken = github.minted.at(-1)?.token;
    now += 11 * MINUTE;
    const fetch = await run('cd repo && git fetch -q origin; s=$?; cd ..; exit $s');
    expect(fetch).toMatchObject({ exitCode: 0, output: '' });
    expect(github.minted.length).toBe(mintedBefore + 1);
    expect(github.accepted.at(-1)).toBe(github.minted.at(-1)?.token);
    expect(github.accepted.at(-1)).not.toBe(oldToken);
  });

  it('keeps the way out after a timeout sweeps every process in the sandbox', async () => {
    const stuck = await sandbox.exec('sleep 30', { timeoutMs: 500 });
    expect(stuck.timedOut).toBe(true);
    const after = await run(
      'for i in 1 2 3 4 5 6 7 8 9 10; do curl -sS -f http://registry.test/after && break; sleep 0.2; done',
    );
    expect(after.output).toContain('package /after');
  });
});
