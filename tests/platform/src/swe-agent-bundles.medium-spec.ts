import { readTrajectoryFile } from '@caravel/agent';
import { replayTrajectory } from '@caravel/cli';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calcRepository } from './harness/calc-repository.js';
import { isolationGate } from './harness/sandbox-gate.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
/** Caravel's own bundles in SWE-agent's layout (registry, windowed, submit) and the trajectory. */
const REPLAY_FIXTURES = here('../../../libs/agent/src/replay/fixtures/');
const TRAJ = join(REPLAY_FIXTURES, 'swe-agent-bundles.traj');

// bwrap is what maps /<repo> and /root/tools: skipped with the reason without it, required with CI=true.
const gate = isolationGate();

gate.describe('caravel replay with SWE-agent tool bundles (bwrap)', () => {
  let scratch: string;
  let repo: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-swe-bundles-'));
    // bwrap runs as an unprivileged user: the sandboxes' parents must be traversable.
    await chmod(scratch, 0o755);
    repo = await calcRepository(scratch);
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('installs the bundles replay_config names and replays /<repo> commands to the recorded patch, with each step state', async () => {
    const lines: string[] = [];
    const report = await replayTrajectory({
      source: TRAJ,
      repo,
      sandbox: 'bwrap',
      toolsDir: join(REPLAY_FIXTURES, 'swe-tools'),
      write: (line) => lines.push(line),
    });
    expect(lines).toContain(
      'installed SWE-agent bundles registry, windowed, submit (repository at /calc-repo)',
    );
    expect(report.steps.map((step) => step.action.args['command'])).toEqual([
      'ls /calc-repo/src',
      'open "/calc-repo/src/calc.py"',
      'goto 4',
      "edit 4:4 << 'end_of_edit'\ndef division(a: float, b: float) -> float:\nend_of_edit",
      'create /calc-repo/NOTES.md',
      'submit',
    ]);
    expect(report.steps.filter((step) => step.verdict !== 'same')).toEqual([]);
    const traj = readTrajectoryFile(await readFile(TRAJ, 'utf8'), TRAJ);
    expect(report.steps.map((step) => step.state)).toEqual(traj.trajectory.map((s) => s.state));
    expect(report).toMatchObject({ identical: true, byteIdentical: true, difference: 'none' });
    expect(report.patch).toContain('index a76fe4b..c72d679 100644');
    expect(report.patch).toContain('new file mode 100644\nindex 0000000..e69de29');
  });

  it('replays a 0.x thought-action file with the bundles named on the command line (the repository at its recorded working_dir)', async () => {
    const file = here('../../../libs/agent/src/trajectory/fixtures/swe-agent-0.x-windowed.traj');
    const report = await replayTrajectory({
      source: file,
      repo,
      sandbox: 'bwrap',
      toolsDir: join(REPLAY_FIXTURES, 'swe-tools'),
      bundles: ['registry', 'windowed', 'submit'],
      write: () => undefined,
    });
    const traj = readTrajectoryFile(await readFile(file, 'utf8'), file);
    expect(report.steps.map((step) => step.action.args['command'])).toContain(
      "edit 4:4 << 'end_of_edit'\ndef division(a: float, b: float) -> float:\nend_of_edit",
    );
    expect(report.steps.map((step) => step.state)).toEqual(traj.trajectory.map((s) => s.state));
    // Its submission starts with a newline: equal once normalised, the bytes differ.
    expect(report).toMatchObject({ identical: true, difference: 'whitespace' });
  });

  it('refuses a bundle whose interpreter the sandbox lacks, in one line naming it', async () => {
    const tools = join(scratch, 'tools');
    await cp(join(REPLAY_FIXTURES, 'swe-tools'), tools, { recursive: true });
    const open = join(tools, 'windowed', 'bin', 'open');
    const body = await readFile(open, 'utf8');
    await writeFile(open, body.replace('#!/usr/bin/env python3', '#!/usr/bin/env python2.4'));
    const replay = replayTrajectory({
      source: TRAJ,
      repo,
      sandbox: 'bwrap',
      toolsDir: tools,
      bundles: ['registry', 'windowed', 'submit'],
      write: () => undefined,
    });
    await expect(replay).rejects.toThrow(
      "SWE-agent bundle 'windowed': bin/open needs python2.4 (#!/usr/bin/env python2.4), which the sandbox does not have",
    );
  });
});
