import { bwrapAvailable } from '@caravel/sandbox';
import { startEgressTargets, type EgressTargets } from '@caravel/sandbox/testing';
import { testEnvironment } from '@caravel/testing';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SuiteTask } from './eval-suite.js';
import { TaskEnvironments } from './task-environments.js';

// An eval builds each task's environment as swegen does, its RUN steps reaching out only through
// an egress proxy: the one the eval's agent sandboxes are configured with (allowlist, mirrors).
const bwrapMissing = !bwrapAvailable();
const describeBwrap = bwrapMissing && !testEnvironment.CI ? describe.skip : describe;

describeBwrap("an eval's task environments and the egress settings", () => {
  let dir: string;
  let targets: EgressTargets;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-envs-'));
    await chmod(dir, 0o755);
    targets = await startEgressTargets();
  });

  afterAll(async () => {
    await targets?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("builds through the proxy with the eval's allowlist and mirror", async () => {
    const taskDir = join(dir, 'task');
    await mkdir(join(taskDir, 'environment'), { recursive: true });
    await writeFile(
      join(taskDir, 'environment', 'Dockerfile'),
      'FROM node:20\nWORKDIR /app\nRUN curl -sS --fail http://registry.test/left-pad > /app/got.txt\n',
    );
    const task: SuiteTask = {
      taskId: 'task',
      dir: taskDir,
      instruction: 'fix it',
      timeouts: { buildMs: 60_000, agentMs: 60_000, verifierMs: 60_000 },
    };
    const environments = new TaskEnvironments(
      join(dir, 'build'),
      new Map([['task', taskDir]]),
      new Map([['task', 1]]),
      {
        egress: {
          allowlist: ['registry.test'],
          upstreamOverrides: { 'registry.test': targets.registryUrl },
        },
      },
    );
    await mkdir(join(dir, 'build'), { recursive: true });

    const built = await environments.for(task);
    expect(built).not.toHaveProperty('error');
    if ('environment' in built) {
      expect(await readFile(join(built.environment.appDir, 'got.txt'), 'utf8')).toBe(
        'package /left-pad\n',
      );
    }
    await environments.release(task);
  });
});
