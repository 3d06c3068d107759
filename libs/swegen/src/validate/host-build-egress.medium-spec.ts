import { isAppError } from '@caravel/errors';
import { bwrapAvailable } from '@caravel/sandbox';
import {
  probeHostPort,
  startEgressTargets,
  type EgressTargets,
  type RunInSandbox,
} from '@caravel/sandbox/testing';
import { testEnvironment } from '@caravel/testing';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOnHost, type BuiltEnvironment } from './host-build.js';

// A task's build script comes from a pull request: it must not reach what listens on the host's
// 127.0.0.1 (PostgreSQL with trust auth, NATS, the broker), only the egress proxy's allowlist.
const bwrapMissing = !bwrapAvailable();
const describeBwrap = bwrapMissing && !testEnvironment.CI ? describe.skip : describe;

describeBwrap('the host build phase and the network', () => {
  let dir: string;
  let targets: EgressTargets;
  let builds = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-build-egress-'));
    await chmod(dir, 0o755);
    targets = await startEgressTargets();
  });

  afterAll(async () => {
    await targets?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Builds a task whose Dockerfile holds `runs`, with `registry.test` allowlisted. */
  async function build(...runs: string[]): Promise<BuiltEnvironment> {
    builds += 1;
    const taskDir = join(dir, `task-${builds}`);
    await mkdir(join(taskDir, 'environment'), { recursive: true });
    const lines = ['FROM debian:bookworm', 'WORKDIR /app', ...runs.map((run) => `RUN ${run}`)];
    await writeFile(join(taskDir, 'environment', 'Dockerfile'), `${lines.join('\n')}\n`);
    const workDir = join(dir, `build-${builds}`);
    await mkdir(workDir, { mode: 0o755 });
    await chmod(workDir, 0o755);
    return buildOnHost({
      taskDir,
      repoPath: taskDir,
      workDir,
      timeoutMs: 60_000,
      egress: {
        allowlist: ['registry.test'],
        upstreamOverrides: { 'registry.test': targets.registryUrl },
      },
    });
  }

  /** One build step per command; its output read back from the built /app. */
  const runInBuild: RunInSandbox = async (command) => {
    const started = Date.now();
    const built = await build(`(${command}) > /app/out.txt 2>&1; echo $? > /app/status.txt`);
    const output = await readFile(join(built.appDir, 'out.txt'), 'utf8');
    return {
      exitCode: Number(await readFile(join(built.appDir, 'status.txt'), 'utf8')),
      output,
      timedOut: false,
      truncated: false,
      outputBytes: Buffer.byteLength(output),
      elapsedMs: Date.now() - started,
    };
  };

  it('fails a build step that connects to a port on the host loopback', async () => {
    const failure = await build(`exec 3<>/dev/tcp/127.0.0.1/${targets.hostServicePort}`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isAppError(failure)).toBe(true);
    expect(failure).toMatchObject({ message: expect.stringContaining('environment build failed') });
  });

  it('reaches a host port neither directly nor through the proxy', async () => {
    expect(await probeHostPort(runInBuild, targets.hostServicePort)).toEqual({
      direct: '',
      viaProxy: '403',
    });
  });

  it('reaches an allowlisted registry through the egress proxy, and nothing else', async () => {
    const fetched = await runInBuild('curl -sS --fail http://registry.test/left-pad/-/1.3.0.tgz');
    expect(fetched).toMatchObject({ exitCode: 0, output: 'package /left-pad/-/1.3.0.tgz\n' });
    expect(targets.registryAuth).toEqual([undefined]);
    const refused = await runInBuild("curl -sS -o /dev/null -w '%{http_code}' http://example.com/");
    expect(refused.output).toBe('403');
  });
});
