import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { extractReplayActions } from './replay-actions.js';
import { jsonPath, parseTraj } from './traj-parser.js';

const FIXTURE = 'fixtures/swe-agent-function-calling.traj';
const fixtureText = readFileSync(new URL(`./${FIXTURE}`, import.meta.url), 'utf8');

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('parseTraj on a SWE-agent trajectory', () => {
  const traj = parseTraj(fixtureText, FIXTURE);

  it('reads the steps, including the failed attempt', () => {
    expect(traj.trajectory).toHaveLength(6);
    expect(traj.trajectory[1]).toMatchObject({
      action: '',
      observation: '',
      response: 'I will view both files at once.',
    });
    expect(traj.trajectory[2]?.query.at(-1)?.content).toContain('multiple tool calls');
  });

  it('reads the summary', () => {
    expect(traj.info.exit_status).toBe('submitted');
    expect(traj.info.submission).toContain('+def division(a: float, b: float) -> float:');
    expect(traj.info.model_stats).toEqual({
      instance_cost: 0.0815271,
      tokens_sent: 24912,
      tokens_received: 611,
      api_calls: 6,
    });
    expect(traj.environment).toBe('main');
    expect(JSON.parse(traj.replay_config ?? 'null')).toMatchObject({ agent: { name: 'main' } });
  });

  it('keeps fields it does not model', () => {
    expect(traj.history[2]).toHaveProperty('thinking_blocks', []);
    expect(traj.history[1]?.content).toEqual([
      expect.objectContaining({ cache_control: { type: 'ephemeral' } }),
    ]);
  });

  it('extracts the accepted actions for replay, in order, without the failed attempt', () => {
    const actions = extractReplayActions(traj);
    expect(actions.map((a) => a.action)).toEqual([
      'find /SWE-agent__test-repo -name missing_colon.py',
      'str_replace_editor view /SWE-agent__test-repo/src/testpkg/missing_colon.py',
      expect.stringContaining('str_replace_editor str_replace'),
      'submit',
      'submit',
    ]);
    expect(actions[0]?.toolCalls?.[0]).toMatchObject({
      id: 'toolu_01FindFile',
      function: { name: 'bash' },
    });
    expect(actions[3]?.response).toBe('The fix is in place. Submitting.');
  });
});

describe('parseTraj leniency', () => {
  it('fills what older or running files leave out', () => {
    const traj = parseTraj(
      JSON.stringify({
        trajectory: [{ action: 'ls', observation: 'a', response: 'ls', thought: '' }],
        replay_config: { a: 1 },
      }),
      'old.traj',
    );
    expect(traj.trajectory[0]).toEqual({
      action: 'ls',
      observation: 'a',
      response: 'ls',
      thought: '',
      execution_time: 0,
      state: {},
      query: [],
      extra_info: {},
    });
    expect(traj.info).toEqual({
      submission: null,
      exit_status: null,
      model_stats: { instance_cost: 0, tokens_sent: 0, tokens_received: 0, api_calls: 0 },
    });
    expect(traj.replay_config).toBe('{"a":1}');
    expect(traj.history).toEqual([]);
  });

  it('reads null message content as empty text', () => {
    const traj = parseTraj(
      JSON.stringify({
        trajectory: [],
        history: [{ role: 'assistant', content: null, thought: null, tool_calls: [] }],
      }),
      'null.traj',
    );
    expect(traj.history[0]).toMatchObject({ content: '', tool_calls: [] });
    expect(extractReplayActions(traj)).toEqual([
      { action: null, thought: '', response: '', toolCalls: [] },
    ]);
  });
});

describe('parseTraj errors', () => {
  it('names the file, line and column of invalid JSON', () => {
    const error = errorOf(() =>
      parseTraj('{\n  "trajectory": [\n    {"action" "ls"}\n  ]\n}', 'runs/bad.traj'),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^runs\/bad\.traj:3:15: not valid JSON/);
    expect(error.details).toMatchObject({ file: 'runs/bad.traj', line: 3, column: 15 });
  });

  it('names the JSON path of a missing or mistyped field', () => {
    const bad = JSON.parse(fixtureText) as {
      trajectory: Record<string, unknown>[];
      info: Record<string, unknown>;
    };
    delete bad.trajectory[3]?.['action'];
    bad.info['exit_status'] = 7;
    const error = errorOf(() => parseTraj(JSON.stringify(bad), FIXTURE));
    expect(error.message).toContain(`${FIXTURE}: not a valid .traj file`);
    expect(error.message).toContain('$.trajectory[3].action');
    expect(error.message).toContain('$.info.exit_status');
    expect(error.details['issues']).toHaveLength(2);
  });

  it('rejects a file that is not an object', () => {
    expect(() => parseTraj('[]', 'list.traj')).toThrow(/list\.traj: not a valid \.traj file: \$:/);
  });
});

describe('jsonPath', () => {
  it('renders keys and indexes', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['history', 4, 'tool_calls', 0, 'id'])).toBe('$.history[4].tool_calls[0].id');
  });
});
