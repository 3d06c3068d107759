import { replayTrajectory } from '@caravel/cli';
import { bwrapAvailable } from '@caravel/sandbox';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calcRepository } from './harness/calc-repository.js';

/** The SWE-agent-shaped fixtures `@caravel/agent`'s unit tests replay on a directory sandbox. */
const FIXTURES = fileURLToPath(
  new URL('../../../libs/agent/src/trajectory/fixtures/', import.meta.url),
);

const sandboxes: ('bwrap' | 'local')[] = bwrapAvailable() ? ['bwrap', 'local'] : ['local'];
/** Bash-only fixtures: SWE-agent's own tool commands need its bundles in the sandbox. */
const FILES = [
  'swe-agent-thought-action.traj',
  'swe-agent-function-calling.demo.yaml',
  'mini-swe-agent.traj.json',
];

describe('caravel replay of SWE-agent and mini-swe-agent files', () => {
  let scratch: string;
  let repo: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-swe-replay-'));
    // bwrap runs as an unprivileged user: the sandboxes' parents must be traversable.
    await chmod(scratch, 0o755);
    repo = await calcRepository(scratch);
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  describe.each(sandboxes)('on a %s sandbox', (sandbox) => {
    it.each(FILES)('%s replays to submitted with the recorded patch', async (file) => {
      const lines: string[] = [];
      const report = await replayTrajectory({
        source: join(FIXTURES, file),
        repo,
        sandbox,
        write: (line) => lines.push(line),
      });
      expect(report.steps.filter((step) => !step.ok)).toEqual([]);
      expect(report.identical).toBe(true);
      expect(report.patch).toContain('index a76fe4b..c72d679 100644');
      expect(lines.at(-1)).toMatch(/^the replayed patch (is identical to|equals) the recorded/);
    });
  });
});
