import { runTask } from '@caravel/cli';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './support/processes.js';

/** Runs the sample's tests on a fresh checkout of `branch`; returns node --test's summary. */
function testsOnBranch(repository: string, branch: string, scratch: string): string {
  const checkout = join(scratch, 'checkout');
  execFileSync('git', ['clone', '--quiet', '--branch', branch, repository, checkout]);
  try {
    return execFileSync(process.execPath, ['--test', 'test/'], { cwd: checkout, encoding: 'utf8' });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

describe('caravel run (the shipped example, offline)', () => {
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-run-e2e-'));
  });

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('fixes the seeded bug with the scripted model and commits it on a branch', async () => {
    const lines: string[] = [];
    const report = await runTask(
      { CARAVEL_FILE_ROOT: repoRoot },
      {
        repo: join(repoRoot, 'examples/sample-repo'),
        model: 'scripted:examples/fix-sample.script.yaml',
        task: 'slugify leaves a trailing dash; make the tests pass',
        write: (line) => lines.push(line),
      },
    );
    expect(report).toMatchObject({ outcome: 'completed', exitStatus: 'submitted', steps: 5 });
    expect(report.diff).toContain("+    .replace(/^-+|-+$/g, '');");
    expect(lines.some((l) => l.startsWith('  step 1: edit_file'))).toBe(true);
    // Progress after each step: tool calls, tokens and cost so far (the script's usage), time.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ {4}tool calls 5 · tokens 7,600 in \/ 180 out · \$0\.0000 · \d+\.\d s$/,
      ),
    );
    const summary = testsOnBranch(report.repository, report.branch, scratch);
    expect(summary).toMatch(/# pass 2/);
    expect(summary).toMatch(/# fail 0/);
  });

  it('says clearly when the repository does not exist', async () => {
    await expect(
      runTask({}, { repo: join(scratch, 'missing'), task: 'anything', write: () => undefined }),
    ).rejects.toThrow(/--repo .*missing: no such directory/);
  });
});
