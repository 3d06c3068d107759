import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvalRun } from '@caravel/evals';
import { compareEvalRuns, EVAL_RUN_FILE } from './eval-compare.command.js';

function run(runId: string, resolves: (task: number) => boolean): EvalRun {
  return {
    runId,
    suite: 'acme-widgets',
    config: runId,
    model: 'scripted',
    createdAt: '2026-12-01T00:00:00Z',
    tasks: Array.from({ length: 10 }, (_, i) => ({
      taskId: `acme__widgets-${i}`,
      attempts: [
        {
          attempt: 1,
          resolved: resolves(i),
          exitStatus: 'submitted',
          costUsd: 0.02,
          modelCalls: 4,
          inputTokens: 900,
          outputTokens: 120,
          wallMs: 12_000,
          patch: 'diff --git a/w b/w\n',
        },
      ],
    })),
  };
}

describe('caravel eval compare', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-'));
    await writeFile(join(dir, 'base.json'), JSON.stringify(run('current', () => true)));
    await writeFile(join(dir, 'half.json'), JSON.stringify(run('cheap-model', (i) => i < 5)));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('shows the flips, refuses the worse configuration and writes the comparison and chart', async () => {
    const out = join(dir, 'out');
    const report = await compareEvalRuns({
      baseline: join(dir, 'base.json'),
      candidate: join(dir, 'half.json'),
      out,
    });
    expect(report.verdict.verdict).toBe('refuse');
    expect(report.text).toContain('lost (5): acme__widgets-5, acme__widgets-6');
    expect(report.text).toContain('gate: refuse');
    expect(JSON.parse(await readFile(join(out, 'comparison.json'), 'utf8'))).toMatchObject({
      verdict: { verdict: 'refuse' },
    });
    expect(await readFile(join(out, 'chart.svg'), 'utf8')).toMatch(/^<svg /);
  });

  it("reads a run's folder as its caravel-eval.json", async () => {
    const folder = join(dir, 'run-folder');
    await writeFile(join(dir, 'x'), '');
    await import('node:fs/promises').then((fs) => fs.mkdir(folder));
    await writeFile(join(folder, EVAL_RUN_FILE), JSON.stringify(run('current', () => true)));
    const report = await compareEvalRuns({ baseline: folder, candidate: join(dir, 'base.json') });
    expect(report.verdict).toMatchObject({ verdict: 'accept', delta: 0 });
  });

  it('refuses a missing file, a file that is not an eval run, and runs of different suites', async () => {
    await expect(
      compareEvalRuns({ baseline: join(dir, 'nope.json'), candidate: join(dir, 'base.json') }),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('no such file'),
    });
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ runId: 'x', tasks: 3 }));
    await expect(
      compareEvalRuns({ baseline: join(dir, 'bad.json'), candidate: join(dir, 'base.json') }),
    ).rejects.toMatchObject({ message: expect.stringContaining('not an eval run') });
    await writeFile(
      join(dir, 'other.json'),
      JSON.stringify({ ...run('o', () => true), suite: 'other' }),
    );
    await expect(
      compareEvalRuns({ baseline: join(dir, 'other.json'), candidate: join(dir, 'base.json') }),
    ).rejects.toMatchObject({ message: expect.stringContaining('different suites') });
  });
});
