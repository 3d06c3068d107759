import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { readTrajectoryFile } from '../trajectory/swe-formats.js';
import type { Traj } from '../trajectory/traj.schema.js';
import { replayActions } from './replay-engine.js';
import { actionsFromTraj } from './replay-source.js';
import { replayTools } from './replay-tools.js';

/**
 * A run that delegated the fix to a subagent (`task`): the subagent ran `sed` and `git diff
 * --stat` in the run's sandbox and answered; the run then read a.txt and submitted. Written by
 * `trajectoryFromEvents` from the run's events, its observations from the real tools.
 */
const FIXTURE = 'fixtures/subagent-task.traj';
const CHILD = '5e4d3c2b-1a09-4f8e-8d7c-6b5a49382716';
const fixture = (): Traj =>
  readTrajectoryFile(readFileSync(new URL(FIXTURE, import.meta.url), 'utf8'), FIXTURE);

let remove: (() => void) | undefined;
afterEach(() => remove?.());

/** The run's starting point: a repository whose a.txt says old. */
function startingPoint(): DirectoryToolSandbox {
  const root = mkdtempSync(join(tmpdir(), 'caravel-replay-task-'));
  remove = () => rmSync(root, { recursive: true, force: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  writeFileSync(join(root, 'a.txt'), 'old\n');
  git('init', '--quiet', '--initial-branch=main');
  git('-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', 'add', '-A');
  git('-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', 'commit', '-qm', 'initial');
  return new DirectoryToolSandbox(root);
}

const SCM = { branch: 'caravel/replay', pullRequestUrl: '/tmp/origin#caravel/replay' };

describe('replaying a run that delegated to a subagent', () => {
  it("puts the subagent's recorded calls where its task call was, the call answering as it did", () => {
    const actions = actionsFromTraj(fixture(), FIXTURE);

    expect(actions.map((a) => [a.step, a.name, a.subagent ?? null])).toEqual([
      [0, 'execute', { runId: CHILD, step: 0, call: 0 }],
      [0, 'execute', { runId: CHILD, step: 1, call: 0 }],
      [0, 'task', null],
      [1, 'execute', null],
      [2, 'submit', null],
    ]);
    expect(actions[2]?.answer).toBe('a.txt now says new (one line changed).');
  });

  it('replays the subagent inside the run: every observation as recorded and the same patch', async () => {
    const sandbox = startingPoint();
    const result = await replayActions(
      actionsFromTraj(fixture(), FIXTURE),
      replayTools(sandbox, SCM),
      sandbox,
    );

    expect(result.outcomes.map((o) => [o.action.name, o.verdict])).toEqual([
      ['execute', 'same'],
      ['execute', 'same'],
      ['task', 'same'],
      ['execute', 'same'],
      ['submit', 'same'],
    ]);
    expect(result.submitted).toBe(true);
    expect(result.patch).toBe(fixture().info.submission);
  });

  it("without the subagent's steps the task call has nothing to run, and the run's next step differs", async () => {
    const sandbox = startingPoint();
    const traj = fixture();
    const withoutSubagents = {
      ...traj,
      caravel: { ...(traj['caravel'] as object), subagents: [] },
    };
    const result = await replayActions(
      actionsFromTraj(withoutSubagents, FIXTURE),
      replayTools(sandbox, SCM),
      sandbox,
    );

    expect(result.outcomes.map((o) => [o.action.name, o.verdict])).toEqual([
      ['task', 'differs'],
      ['execute', 'differs'],
      ['submit', 'differs'],
    ]);
  });

  it('names the JSON path of a malformed subagent', () => {
    const traj = fixture();
    const broken = { ...traj, caravel: { subagents: [{ run_id: CHILD, tool_call_id: 1 }] } };
    expect(() => actionsFromTraj(broken, FIXTURE)).toThrow(/caravel\.subagents\[0\]\.tool_call_id/);
  });
});
