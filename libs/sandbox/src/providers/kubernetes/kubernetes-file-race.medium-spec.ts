import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import type { Sandbox } from '../../sandbox.types.js';
import { RACE_SECRET, raceFileOperations, swapperCommand } from '../../testing/file-race.js';
import { startFakeKubernetes, type FakeKubernetes } from '../../testing/fake-kubernetes.js';
import { bwrapAvailable } from '../bwrap.provider.js';
import { KubernetesSandboxProvider } from './kubernetes.provider.js';

// File operations of a kubernetes sandbox are served by a helper exec in the pod. The fake's
// kubelet runs each exec in a bubblewrap namespace showing only /usr, a fresh /tmp and the pod's
// claim mounts (`isolation: 'bwrap'`), as a container runtime would: so a link the agent swaps in
// towards a host directory names nothing the helper can reach, while the broker's own mount of the
// claim (where file operations used to run) would have followed it.
const missing = !bwrapAvailable();
if (missing && !testEnvironment.CI) {
  process.stdout.write(
    'kubernetes file race skipped: bubblewrap is not installed (apt-get install bubblewrap)\n',
  );
}
const maybe = missing && !testEnvironment.CI ? describe.skip : describe;

maybe('file operations on a kubernetes sandbox, served from inside its pod', () => {
  let root: string;
  let outside: string;
  let fake: FakeKubernetes;
  const provider = (nodePath?: string) =>
    new KubernetesSandboxProvider({
      rootDir: root,
      claimName: 'sandboxes',
      namespace: 'sandboxes',
      kubeConfig: fake.kubeConfig(),
      mountPaths: 'broker',
      timing: { killGraceMs: 1_000, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 },
      podTiming: { pollMs: 50 },
      ...(nodePath ? { nodePath } : {}),
    });
  const execs = () => fake.requests.filter((request) => request.startsWith('exec ')).length;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-k8s-race-'));
    await chmod(root, 0o755);
    outside = await mkdtemp(join(tmpdir(), 'caravel-outside-'));
    await chmod(outside, 0o777);
    await writeFile(join(outside, 'secret.txt'), RACE_SECRET);
    fake = await startFakeKubernetes({ claims: { sandboxes: root }, isolation: 'bwrap' });
  });

  afterAll(async () => {
    await fake?.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('never reads or writes the host directory a swapped-in link names', async () => {
    const pods = provider();
    const sandbox: Sandbox = await pods.create({ id: 'race' });
    try {
      const before = execs();
      await sandbox.writeFile('d/secret.txt', 'inside\n');
      expect(await sandbox.readFile('d/secret.txt')).toBe('inside\n');
      // One long-lived helper exec serves every operation of the session.
      expect(execs() - before).toBe(1);
      expect((await sandbox.exec(swapperCommand(outside))).exitCode).toBe(0);
      const outcome = await raceFileOperations(sandbox);
      expect(outcome.leaked).toBe(0);
      expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
      // The race really ran: some operations met the directory, some the link.
      expect(outcome.inside).toBeGreaterThan(0);
      expect(outcome.refused).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
      await pods.delete('race').catch(() => undefined);
    }
  });

  it('fails file operations closed, naming node, when the image has none', async () => {
    const pods = provider('/nonexistent/node');
    const sandbox = await pods.create({ id: 'no-node' });
    try {
      expect((await sandbox.exec('echo inside > note.txt')).exitCode).toBe(0);
      for (const operation of [() => sandbox.readFile('note.txt'), () => sandbox.glob('*')]) {
        const failure = await operation().then(
          () => null,
          (error: unknown) => error,
        );
        expect(sandboxErrorReason(failure)).toBe('unsupported');
        expect(String((failure as Error).message)).toContain(
          'file operations need node in the sandbox image: /nonexistent/node was not found',
        );
      }
    } finally {
      await sandbox.close();
      await pods.delete('no-node').catch(() => undefined);
    }
  });
});
