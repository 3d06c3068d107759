import { describe, expect, it } from '@jest/globals';
import { Validator } from '@langchain/core/utils/json_schema';
import { AppError } from '@caravel/errors';
import { extractReplayActions } from './replay-actions.js';
import { trajJsonSchema } from './traj-json-schema.js';
import { parseTraj } from './traj-parser.js';
import { TrajectoryBuilder, buildTrajectory, type StepRecord } from './trajectory-builder.js';
import type { TrajHistoryItem } from './traj.schema.js';

const OPTIONS = { environment: 'caravel-bwrap', replayConfig: '{"agent":{}}', agent: 'main' };
const SYSTEM: TrajHistoryItem = {
  role: 'system',
  content: 'You are a coding agent.',
  agent: 'main',
  message_type: 'system_prompt',
};
const INSTANCE: TrajHistoryItem = {
  role: 'user',
  content: 'Fix the slugify bug.',
  agent: 'main',
  message_type: 'observation',
};
const PATCH = 'diff --git a/slug.ts b/slug.ts\n';

/** A run: one format error requeried, two accepted steps (one via tool calls), then a submission. */
function records(): StepRecord[] {
  const base = [SYSTEM, INSTANCE];
  return [
    { kind: 'message', item: SYSTEM },
    { kind: 'message', item: INSTANCE },
    {
      kind: 'model_response',
      query: base,
      response: 'I will look around',
      thought: '',
      action: '',
    },
    {
      kind: 'requery',
      failure: { kind: 'format', message: 'no tool call', errorCode: 'missing' },
      message: 'Use one tool.',
    },
    {
      kind: 'model_response',
      query: base,
      response: 'Listing files.',
      thought: 'Listing files.',
      action: 'ls',
    },
    {
      kind: 'tool_call',
      toolCalls: [{ id: 'call_1', name: 'bash', args: { command: 'ls' } }],
      toolCallIds: ['call_1'],
    },
    {
      kind: 'observation',
      observation: 'slug.ts\n',
      shaped: 'OBSERVATION:\nslug.ts\n',
      executionTime: 0.02,
    },
    { kind: 'state', state: { working_dir: '/repo' } },
    {
      kind: 'cost',
      stats: { instanceCost: 0.02, tokensSent: 900, tokensReceived: 40, apiCalls: 2 },
    },
    {
      kind: 'model_response',
      query: base,
      response: 'Submitting.',
      thought: 'Submitting.',
      action: 'submit',
    },
    { kind: 'observation', observation: PATCH, executionTime: 0.1 },
    {
      kind: 'cost',
      stats: { instanceCost: 0.03, tokensSent: 1500, tokensReceived: 60, apiCalls: 3 },
    },
    { kind: 'exit', exitStatus: 'submitted', submission: PATCH },
  ];
}

describe('TrajectoryBuilder', () => {
  it('records failed attempts in the trajectory but not in the history', () => {
    const traj = buildTrajectory(records(), OPTIONS);
    expect(traj.trajectory).toHaveLength(3);
    expect(traj.trajectory[0]).toMatchObject({
      action: '',
      observation: '',
      response: 'I will look around',
      thought: 'I will look around',
      extra_info: { requery: { failure: { kind: 'format' }, message: 'Use one tool.' } },
    });
    expect(traj.history).toHaveLength(2 + 2 * 2);
    expect(traj.history.map((h) => h.content)).not.toContain('I will look around');
  });

  it('writes assistant and observation items, tool calls and state like SWE-agent', () => {
    const traj = buildTrajectory(records(), OPTIONS);
    expect(traj.history[2]).toEqual({
      role: 'assistant',
      content: 'Listing files.',
      thought: 'Listing files.',
      action: 'ls',
      agent: 'main',
      message_type: 'action',
      tool_calls: [{ id: 'call_1', name: 'bash', args: { command: 'ls' } }],
    });
    expect(traj.history[3]).toEqual({
      role: 'tool',
      content: 'OBSERVATION:\nslug.ts\n',
      agent: 'main',
      message_type: 'observation',
      tool_call_ids: ['call_1'],
    });
    expect(traj.history[5]).toMatchObject({ role: 'user', content: PATCH });
    expect(traj.trajectory[1]).toMatchObject({
      observation: 'slug.ts\n',
      execution_time: 0.02,
      state: { working_dir: '/repo' },
    });
  });

  it('fills info from the exit and the latest cost', () => {
    const { info } = buildTrajectory(records(), {
      ...OPTIONS,
      info: { swe_agent_version: 'caravel-0.1.0' },
    });
    expect(info).toEqual({
      swe_agent_version: 'caravel-0.1.0',
      exit_status: 'submitted',
      submission: PATCH,
      model_stats: { instance_cost: 0.03, tokens_sent: 1500, tokens_received: 60, api_calls: 3 },
    });
  });

  it('round-trips: build, validate against the JSON Schema, parse back, replay', () => {
    const traj = buildTrajectory(records(), OPTIONS);
    const json = JSON.stringify(traj, null, 2);
    const validation = new Validator(trajJsonSchema(), '7').validate(JSON.parse(json));
    expect(validation.errors).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(parseTraj(json, 'run.traj')).toEqual(traj);
    expect(extractReplayActions(traj).map((a) => a.action)).toEqual(['ls', 'submit']);
  });

  it('produces a document the JSON Schema rejects when a required field is wrong', () => {
    // Widened to what the test breaks: any value may be written to a step's action.
    const broken: { trajectory: { action: unknown }[] } = structuredClone(
      buildTrajectory(records(), OPTIONS),
    );
    if (broken.trajectory[0] !== undefined) broken.trajectory[0].action = 42;
    expect(new Validator(trajJsonSchema(), '7').validate(broken).valid).toBe(false);
  });

  it('adds a closing step for an error exit that came between steps', () => {
    const traj = buildTrajectory(
      [
        { kind: 'message', item: INSTANCE },
        { kind: 'model_response', query: [INSTANCE], response: 'ls', thought: '', action: 'ls' },
        { kind: 'observation', observation: 'a', executionTime: 0 },
        {
          kind: 'exit',
          exitStatus: 'submitted (exit_cost)',
          submission: PATCH,
          observation: 'Exited (autosubmitted)',
        },
      ],
      OPTIONS,
    );
    expect(traj.trajectory.map((s) => s.observation)).toEqual(['a', 'Exited (autosubmitted)']);
    expect(traj.history).toHaveLength(3);
    expect(traj.info.exit_status).toBe('submitted (exit_cost)');
  });

  it('records three failed attempts and a closing step for an exit_format run', () => {
    const failure = { kind: 'format', message: 'no tool call', errorCode: 'missing' } as const;
    const attempt = (response: string): StepRecord[] => [
      { kind: 'model_response', query: [INSTANCE], response, thought: '', action: '' },
      { kind: 'requery', failure, message: 'Use one tool.' },
    ];
    const traj = buildTrajectory(
      [
        { kind: 'message', item: INSTANCE },
        ...attempt('a'),
        ...attempt('b'),
        ...attempt('c'),
        { kind: 'exit', exitStatus: 'exit_format', submission: null, observation: 'Exited' },
      ],
      OPTIONS,
    );
    expect(traj.trajectory.map((s) => s.response)).toEqual(['a', 'b', 'c', '']);
    expect(traj.history).toEqual([INSTANCE]);
    expect(traj.info.exit_status).toBe('exit_format');
  });

  it('completes an unobserved step with the exit observation', () => {
    const traj = buildTrajectory(
      [
        { kind: 'model_response', query: [], response: 'pytest', thought: '', action: 'pytest' },
        {
          kind: 'exit',
          exitStatus: 'exit_command_timeout',
          submission: null,
          observation: 'Exited',
        },
      ],
      OPTIONS,
    );
    expect(traj.trajectory).toEqual([
      expect.objectContaining({ action: 'pytest', observation: 'Exited' }),
    ]);
  });

  it('can be built after every step and leaves out a step still waiting for its observation', () => {
    const builder = new TrajectoryBuilder(OPTIONS).addAll(records().slice(0, 8));
    expect(builder.build().trajectory).toHaveLength(2);
    builder.add({
      kind: 'model_response',
      query: [],
      response: 'again',
      thought: '',
      action: 'ls',
    });
    expect(builder.build().trajectory).toHaveLength(2);
    expect(builder.build().info.exit_status).toBeNull();
  });

  it.each<[string, StepRecord[]]>([
    [
      'an observation without a response',
      [{ kind: 'observation', observation: 'x', executionTime: 0 }],
    ],
    [
      'two responses without an observation',
      [
        { kind: 'model_response', query: [], response: 'a', thought: '', action: 'a' },
        { kind: 'model_response', query: [], response: 'b', thought: '', action: 'b' },
      ],
    ],
    [
      'a record after the exit',
      [
        { kind: 'exit', exitStatus: 'exit_cost', submission: null, observation: 'Exited' },
        { kind: 'message', item: SYSTEM },
      ],
    ],
  ])('rejects %s, naming the record', (_name, bad) => {
    expect(() => buildTrajectory(bad, OPTIONS)).toThrow(AppError);
    expect(() => buildTrajectory(bad, OPTIONS)).toThrow(/record #\d/);
  });
});
