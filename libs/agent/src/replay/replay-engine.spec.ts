import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { replayActions } from './replay-engine.js';
import type { RecordedAction } from './replay-source.js';
import { replayTools } from './replay-tools.js';

const SCM = { branch: 'caravel/replay', pullRequestUrl: '/tmp/origin#caravel/replay' };

function action(name: string, args: Record<string, unknown>, recorded: string | null = null) {
  return (step: number): RecordedAction => ({ step, call: 0, name, args, recorded });
}

function actions(...makers: ((step: number) => RecordedAction)[]): RecordedAction[] {
  return makers.map((make, step) => make(step));
}

interface TempRepo {
  sandbox: DirectoryToolSandbox;
  git: (...args: string[]) => string;
  remove: () => void;
}

/** A throwaway repository with `a.txt` committed, and a directory sandbox over it. */
function createTempRepo(): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'caravel-replay-'));
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  writeFileSync(join(root, 'a.txt'), 'old\n');
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'Caravel tests');
  git('config', 'user.email', 'tests@caravel.invalid');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'initial');
  return {
    sandbox: new DirectoryToolSandbox(root),
    git,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

describe('replayActions', () => {
  let repo: TempRepo | undefined;

  afterEach(() => {
    repo?.remove();
    repo = undefined;
  });

  function setUp(): TempRepo {
    repo = createTempRepo();
    return repo;
  }

  it('re-executes the calls with the real tools and returns the submit result as the patch', async () => {
    const { sandbox } = setUp();
    const result = await replayActions(
      actions(
        action('edit_file', { path: 'a.txt', old_string: 'old', new_string: 'new' }),
        action('submit', {}),
      ),
      replayTools(sandbox, SCM),
      sandbox,
    );
    expect(result.submitted).toBe(true);
    expect(result.patch).toContain('-old\n+new\n');
    expect(result.patch).toBe(await sandbox.diff());
  });

  it('reports the step whose observation differs and goes on', async () => {
    const { sandbox } = setUp();
    const result = await replayActions(
      actions(
        action('execute', { command: 'cat a.txt' }, 'something else\n'),
        action('execute', { command: 'echo done' }, 'done\n'),
        action('write_file', { path: 'b.txt', content: 'b\n' }),
      ),
      replayTools(sandbox, SCM),
      sandbox,
    );
    expect(result.outcomes.map((o) => o.verdict)).toEqual(['differs', 'same', 'unrecorded']);
    expect(result.mismatches.map((o) => o.action.step)).toEqual([0]);
    expect(result.stoppedEarly).toBe(false);
    expect(result.submitted).toBe(false);
    expect(result.patch).toContain('+++ b/b.txt');
  });

  it('stops at the first mismatch when asked', async () => {
    const { sandbox } = setUp();
    const result = await replayActions(
      actions(
        action('execute', { command: 'cat a.txt' }, 'not this'),
        action('write_file', { path: 'b.txt', content: 'b\n' }),
      ),
      replayTools(sandbox, SCM),
      sandbox,
      { stopOnMismatch: true },
    );
    expect(result.stoppedEarly).toBe(true);
    expect(result.outcomes).toHaveLength(1);
    expect(result.patch).toBeNull();
  });

  it('answers an unknown tool with an error observation instead of failing the replay', async () => {
    const { sandbox } = setUp();
    const result = await replayActions(
      actions(action('str_replace_editor', { command: 'view' })),
      replayTools(sandbox, SCM),
      sandbox,
    );
    expect(result.outcomes[0]).toMatchObject({ ok: false, verdict: 'unrecorded' });
    expect(result.outcomes[0]?.observation).toMatch(/no tool named 'str_replace_editor'/);
  });

  it('commits in the sandbox for commit_and_open_pr and keeps the diff against the start', async () => {
    const { sandbox, git } = setUp();
    const start = git('rev-parse', 'HEAD').trim();
    const result = await replayActions(
      actions(
        action('write_file', { path: 'a.txt', content: 'new\n' }),
        action('commit_and_open_pr', { commit_message: 'fix', title: 'fix', body: 'fix' }),
      ),
      replayTools(sandbox, SCM),
      sandbox,
    );
    expect(result.outcomes[1]?.ok).toBe(true);
    expect(result.outcomes[1]?.observation).toContain(SCM.pullRequestUrl);
    expect(git('rev-parse', 'HEAD').trim()).not.toBe(start);
  });
});
