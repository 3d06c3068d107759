import { bwrapAvailable } from '@caravel/sandbox';
import { startEgressTargets, type EgressTargets } from '@caravel/sandbox/testing';
import { testEnvironment } from '@caravel/testing';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSwegen } from './swegen.command.js';

// `caravel swegen validate` builds a task with the agent sandboxes' egress settings: a mirror or
// an extra host configured in SANDBOX_EGRESS_ALLOWLIST / SANDBOX_EGRESS_MIRRORS serves its builds.
const bwrapMissing = !bwrapAvailable();
const describeBwrap = bwrapMissing && !testEnvironment.CI ? describe.skip : describe;

/** A scratch directory with a stand-in registry.test, and a task whose build downloads from it. */
interface Scratch {
  readonly dir: string;
  readonly targets: EgressTargets;
  readonly task: string;
}

const TASK_FILES: Readonly<Record<string, string>> = {
  'environment/Dockerfile':
    'FROM debian:bookworm\nWORKDIR /app\n' +
    'RUN curl -sS --fail http://registry.test/left-pad/-/1.3.0.tgz > /app/pkg.txt\n',
  'tests/test.sh':
    '#!/bin/bash\nif [ -f /app/fixed ] && grep -q left-pad /app/pkg.txt; ' +
    'then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n',
  'solution/solve.sh': '#!/bin/bash\ntouch /app/fixed\n',
  'instruction.md': 'Fix it.\n',
  'task.toml': '[environment]\nbuild_timeout_sec = 60\n',
};

async function openScratch(): Promise<Scratch> {
  const dir = await mkdtemp(join(tmpdir(), 'caravel-swegen-egress-'));
  await chmod(dir, 0o755);
  const task = join(dir, 'tasks', 'acme__pkg-1');
  await Promise.all(
    Object.keys(TASK_FILES).map((path) => mkdir(dirname(join(task, path)), { recursive: true })),
  );
  await Promise.all(
    Object.entries(TASK_FILES).map(([path, text]) => writeFile(join(task, path), text)),
  );
  return { dir, task, targets: await startEgressTargets() };
}

describeBwrap('caravel swegen validate and the egress settings', () => {
  let scratch: Scratch;

  beforeAll(async () => {
    scratch = await openScratch();
  });

  afterAll(async () => {
    if (!scratch) return;
    await scratch.targets.close();
    await rm(scratch.dir, { recursive: true, force: true });
  });

  async function validate(env: Record<string, string>) {
    const out: string[] = [];
    const { task, dir } = scratch;
    const args = ['validate', task, '--runner', 'bwrap', '--repo-path', task];
    const state = ['--state-dir', join(dir, 'state')];
    const status = await runSwegen([...args, ...state], env, {
      out: (line) => out.push(line) > 0,
      err: (line) => out.push(line) > 0,
    });
    return { status, out: out.join('\n') };
  }

  it('builds through the configured allowlist and mirror', async () => {
    const run = await validate({
      SANDBOX_EGRESS_ALLOWLIST: 'registry.test',
      SANDBOX_EGRESS_MIRRORS: `registry.test=${scratch.targets.registryUrl}`,
    });
    expect(run.out).toContain('acme__pkg-1: NOP=0 ORACLE=1 PASS');
    expect(run.status).toBe(0);
    expect(scratch.targets.registryAuth.length).toBeGreaterThan(0);
  });

  it('fails the build where the default allowlist does not name the host', async () => {
    const run = await validate({});
    expect(run.out).toContain('environment build failed at RUN curl');
    expect(run.status).toBe(12);
  });
});
