import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseTraj } from '../trajectory/traj-parser.js';
import type { Traj } from '../trajectory/traj.schema.js';
import { actionsFromTraj, isCaravelTraj } from './replay-source.js';
import { replayStartOf } from './replay-start.js';

const FIXTURE = '../trajectory/fixtures/swe-agent-function-calling.traj';
const sweAgent = parseTraj(
  readFileSync(new URL(FIXTURE, import.meta.url), 'utf8'),
  'swe-agent-function-calling.traj',
);

function caravelTraj(extra: unknown): Traj {
  return {
    trajectory: [
      {
        action: 'execute {"command":"ls"}',
        observation: 'a.txt',
        response: 'look',
        thought: 'look',
        execution_time: 0,
        state: {},
        query: [],
        extra_info: { caravel: extra },
      },
    ],
    history: [],
    info: { submission: null, exit_status: 'submitted', model_stats: emptyStats() },
    replay_config: JSON.stringify({
      env: { repo: { clone_url: '/srv/repo', base_commit: 'b'.repeat(40), branch: 'caravel/x' } },
      caravel: { thread_id: 't-1' },
    }),
    environment: 'caravel',
  };
}

function emptyStats() {
  return { instance_cost: 0, tokens_sent: 0, tokens_received: 0, api_calls: 0 };
}

describe('actionsFromTraj', () => {
  it("maps SWE-agent's bash actions to execute and its final submit to submit, with the raw observations", () => {
    expect(isCaravelTraj(sweAgent)).toBe(false);
    const actions = actionsFromTraj(sweAgent, 'swe.traj');
    // The first submit was review_on_submit's review stage: only the second one submitted.
    expect(actions.map((a) => a.name)).toEqual(['execute', 'execute', 'execute', 'submit']);
    expect(actions[0]).toMatchObject({
      args: { command: 'find /SWE-agent__test-repo -name missing_colon.py' },
      recorded: sweAgent.trajectory[0]?.observation,
    });
  });

  it("takes Caravel's exact calls and each call's recorded result", () => {
    const traj = caravelTraj({
      step: 4,
      tool_calls: [{ id: 'c1', name: 'ls', args: { path: '.' } }],
      results: [{ toolCallId: 'c1', name: 'ls', content: 'a.txt', status: 'success' }],
    });
    expect(actionsFromTraj(traj, 'run.traj')).toEqual([
      { step: 4, call: 0, name: 'ls', args: { path: '.' }, recorded: 'a.txt' },
    ]);
  });

  it('names the file and JSON path of a malformed Caravel step', () => {
    const traj = caravelTraj({ step: 0, tool_calls: [{ id: 'c1', args: {} }], results: [] });
    expect(() => actionsFromTraj(traj, 'run.traj')).toThrow(
      'run.traj: $.trajectory[0].extra_info.caravel.tool_calls[0].name',
    );
  });
});

describe('replayStartOf', () => {
  it("reads Caravel's starting point", () => {
    const traj = caravelTraj({ step: 0, tool_calls: [], results: [] });
    expect(replayStartOf(traj)).toEqual({
      cloneUrl: '/srv/repo',
      baseCommit: 'b'.repeat(40),
      branch: 'caravel/x',
      model: null,
      threadId: 't-1',
    });
  });

  it("takes SWE-agent's github_url as the clone URL and leaves unknown what its config does not say", () => {
    expect(replayStartOf(sweAgent)).toMatchObject({
      cloneUrl: 'https://github.com/SWE-agent/test-repo',
      baseCommit: null,
      model: 'claude-sonnet-4-20250514',
    });
  });
});
