import { parseTraj, type Traj } from '@caravel/agent';
import { bwrapAvailable } from '@caravel/sandbox';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportTrajectory, replayTrajectory, runTask } from '@caravel/cli';
import { repoRoot } from './support/processes.js';

const TASK = 'slugify leaves a trailing dash; make the tests pass';

/** The same file with the edit_file call's replacement changed (one recorded action tampered). */
function tampered(traj: Traj): Traj {
  const copy = structuredClone(traj);
  for (const step of copy.trajectory) {
    const calls = (
      step.extra_info['caravel'] as
        { tool_calls?: { name: string; args: Record<string, unknown> }[] } | undefined
    )?.tool_calls;
    const edit = calls?.find((call) => call.name === 'edit_file');
    if (edit) edit.args['new_string'] = ".replace(/^-+/g, '');";
  }
  return copy;
}

describe('caravel trajectory export and caravel replay (the shipped example)', () => {
  let scratch: string;
  let dataDir: string;
  let threadId: string;
  let trajFile: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-replay-e2e-'));
    dataDir = join(scratch, 'data');
    // bwrap runs as an unprivileged user: the sandboxes' parents must be traversable.
    await chmod(scratch, 0o755);
    await mkdir(dataDir);
    const lines: string[] = [];
    const report = await runTask(
      { CARAVEL_FILE_ROOT: repoRoot },
      {
        repo: join(repoRoot, 'examples/sample-repo'),
        model: 'scripted:examples/fix-sample.script.yaml',
        task: TASK,
        dataDir,
        write: (line) => lines.push(line),
      },
    );
    expect(report.exitStatus).toBe('submitted');
    threadId = /^thread (\S+):/.exec(lines.find((l) => l.startsWith('thread ')) ?? '')?.[1] ?? '';
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('exports the run as a .traj that parses, with the submitted diff and the model stats', async () => {
    trajFile = join(scratch, 'run.traj');
    const written = await exportTrajectory({ threadId, dataDir, out: trajFile });
    expect(written.file).toBe(trajFile);
    const traj = parseTraj(await readFile(trajFile, 'utf8'), trajFile);
    expect(traj.info.exit_status).toBe('submitted');
    expect(traj.info.submission).toContain("+    .replace(/^-+|-+$/g, '');");
    expect(traj.info.model_stats).toMatchObject({
      api_calls: 5,
      tokens_sent: 7600,
      tokens_received: 180,
    });
    expect(traj.trajectory).toHaveLength(5);
  });

  const sandboxes: ('bwrap' | 'local')[] = bwrapAvailable() ? ['bwrap'] : ['local'];

  it.each(sandboxes)(
    'replays the .traj in a fresh %s sandbox to the identical patch',
    async (sandbox) => {
      const lines: string[] = [];
      const report = await replayTrajectory({
        source: trajFile,
        sandbox,
        write: (l) => lines.push(l),
      });
      expect(report.summary).toBe('');
      expect(report.identical).toBe(true);
      expect(report.patch).toBe(report.recorded);
      expect(report.steps.map((s) => s.action.name)).toEqual([
        'execute',
        'edit_file',
        'execute',
        'commit_and_open_pr',
        'submit',
      ]);
      expect(lines.at(-1)).toBe('the replayed patch is identical to the recorded submission');
    },
  );

  it('reports the difference when one recorded action was tampered with', async () => {
    const file = join(scratch, 'tampered.traj');
    const original = parseTraj(await readFile(trajFile, 'utf8'), trajFile);
    await writeFile(file, JSON.stringify(tampered(original)));
    const report = await replayTrajectory({
      source: file,
      sandbox: sandboxes[0],
      write: () => undefined,
    });
    expect(report.identical).toBe(false);
    expect(report.summary).toContain("-+    .replace(/^-+|-+$/g, '');");
    expect(report.summary).toContain("++    .replace(/^-+/g, '');");
    expect(report.steps.find((s) => s.action.name === 'edit_file')?.verdict).toBe('differs');
  });

  it('says clearly when the thread is unknown', async () => {
    await expect(
      exportTrajectory({ threadId: '00000000-0000-4000-8000-000000000000', dataDir }),
    ).rejects.toThrow('unknown thread 00000000-0000-4000-8000-000000000000: no recorded events');
  });
});
