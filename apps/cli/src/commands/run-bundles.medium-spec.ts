import { readTrajectoryFile } from '@caravel/agent';
import { bwrapAvailable } from '@caravel/sandbox';
import { testEnvironment } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTask } from './run.command.js';

/** Caravel's own bundles in SWE-agent's layout: `registry`, and `windowed` (python3) with its `_state`. */
const SWE_TOOLS = fileURLToPath(
  new URL('../../../../libs/agent/src/replay/fixtures/swe-tools', import.meta.url),
);

/**
 * The scripted model: looks around (no file open yet), opens the file with the bundle's `open`,
 * edits it with `edit … end_of_edit` as SWE-agent's models write it (the run adds the heredoc),
 * submits.
 */
const SCRIPT = {
  responses: [
    { content: 'Looking around.', tool_calls: [{ name: 'execute', args: { command: 'ls' } }] },
    {
      content: 'Opening the file.',
      tool_calls: [{ name: 'execute', args: { command: 'open calc.py' } }],
    },
    {
      content: 'Fixing the sign.',
      tool_calls: [
        {
          name: 'execute',
          args: { command: 'edit 2:2\n    return a + b\nend_of_edit' },
        },
      ],
    },
    { content: 'Done.', tool_calls: [{ name: 'submit', args: {} }] },
  ],
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });
}

// The bundles' copy is bound read-only into the bubblewrap sandbox; required with CI=true.
if (!bwrapAvailable() && testEnvironment.CI) throw new Error('CI=true requires bubblewrap');
const suite = bwrapAvailable() ? describe : describe.skip;

suite('caravel run --tools-dir --bundle (bwrap)', () => {
  let scratch: string;
  let repo: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-run-bundles-'));
    // bwrap runs as an unprivileged user: the sandboxes' parents must be traversable.
    await chmod(scratch, 0o755);
    repo = join(scratch, 'calc');
    await mkdir(repo);
    await writeFile(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'calc');
    await writeFile(join(scratch, 'script.json'), JSON.stringify(SCRIPT));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("offers the bundles' commands, runs them through execute and records each step's _state", async () => {
    const lines: string[] = [];
    const trajectory = join(scratch, 'run.traj');
    const report = await runTask(
      { CARAVEL_FILE_ROOT: scratch },
      {
        repo,
        task: 'add subtracts; make it add',
        model: 'scripted:script.json',
        toolsDir: SWE_TOOLS,
        bundles: ['registry', 'windowed'],
        trajectory,
        write: (line) => lines.push(line),
      },
    );
    expect(report).toMatchObject({ outcome: 'completed', exitStatus: 'submitted', steps: 4 });
    expect(lines).toContain('caravel: SWE-agent bundles registry, windowed read');
    const traj = readTrajectoryFile(await readFile(trajectory, 'utf8'), trajectory);
    expect(traj.trajectory[1]?.observation).toContain('[File: /workspace/calc.py (2 lines total)]');
    expect(traj.info.submission).toContain('-    return a - b\n+    return a + b');
    // The windowed bundle's _state, run in the sandbox after each step's call.
    expect(traj.trajectory.map((step) => step.state)).toEqual([
      { open_file: 'n/a', working_dir: '/workspace' },
      { open_file: '/workspace/calc.py', working_dir: '/workspace' },
      { open_file: '/workspace/calc.py', working_dir: '/workspace' },
      { open_file: '/workspace/calc.py', working_dir: '/workspace' },
    ]);
    const system = traj.history.find((item) => item.message_type === 'system_prompt');
    expect(system?.content).toContain('signature: open "<path>" [<line_number>]');
    expect(system?.content).not.toContain('_state');
  });

  it('keeps its data to itself when CARAVEL_DATABASE_URL is set (an eval attempt, a deployment shell)', async () => {
    await writeFile(
      join(scratch, 'submit.json'),
      JSON.stringify({
        responses: [{ content: 'Done.', tool_calls: [{ name: 'submit', args: {} }] }],
      }),
    );
    const lines: string[] = [];
    const report = await runTask(
      // Nothing listens there: a run that used it could not start.
      {
        CARAVEL_FILE_ROOT: scratch,
        CARAVEL_DATABASE_URL: 'postgres://caravel@127.0.0.1:9/nowhere',
      },
      {
        repo,
        task: 'look, then submit',
        model: 'scripted:submit.json',
        write: (line) => lines.push(line),
      },
    );
    expect(report).toMatchObject({ outcome: 'completed', exitStatus: 'submitted' });
    expect(lines).toContain(
      'caravel: CARAVEL_DATABASE_URL is not used: a run keeps its data in its own folder',
    );
  });
});
