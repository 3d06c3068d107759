import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import Ajv from 'ajv';
import { trajectoryFromEvents } from './from-events.js';
import type { RunEventInput } from './from-events.parse.js';
import { trajJsonSchema } from './traj-json-schema.js';
import { parseTraj } from './traj-parser.js';
import { extractReplayActions } from './replay-actions.js';
import { readTrajectoryFile } from './swe-formats.js';

const PATCH = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n';
const BASE = 'a'.repeat(40);

interface Call {
  name: string;
  args?: Record<string, unknown>;
  result: string;
  status?: 'success' | 'error';
}

/** A hand-made run: started, one step per turn, finished. */
function runEvents(turns: Call[][], finished: { exitStatus: string; summary?: string }) {
  const threadId = randomUUID();
  const runId = randomUUID();
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>): RunEventInput => ({
    type: `evt.run.${type}`,
    sequence: ++sequence,
    runId,
    data: { threadId, runId, ...data },
  });
  const started = event('started', {
    runner: 'caravel',
    repository: { owner: 'local', name: 'sample', cloneUrl: '/tmp/sample' },
    branch: 'caravel/1234abcd',
    baseCommit: BASE,
    model: 'scripted:fix.yaml',
    prompt: 'fix it',
  });
  const steps = turns.map((calls, step) =>
    event('step', {
      step,
      thought: `turn ${step}`,
      action: calls.map((c) => c.name).join('\n'),
      observation: calls.map((c) => c.result).join('\n'),
      toolCalls: calls.map((c, k) => ({
        id: `call-${step}-${k}`,
        name: c.name,
        args: c.args ?? {},
      })),
      results: calls.map((c, k) => ({
        toolCallId: `call-${step}-${k}`,
        name: c.name,
        content: c.result,
        status: c.status ?? 'success',
      })),
      usage: { inputTokens: 100 * (step + 1), outputTokens: 10, costUsd: 0.25 },
    }),
  );
  return {
    threadId,
    runId,
    events: [
      started,
      ...steps,
      event('finished', { outcome: 'completed', summary: '', ...finished }),
    ],
  };
}

const FIX_RUN: Call[][] = [
  [{ name: 'execute', args: { command: 'cat a.txt' }, result: 'old' }],
  [
    {
      name: 'edit_file',
      args: { path: 'a.txt', old_string: 'old', new_string: 'new' },
      result: 'edited',
    },
    { name: 'execute', args: { command: 'cat a.txt' }, result: 'new' },
  ],
  [{ name: 'submit', result: PATCH }],
];

describe('trajectoryFromEvents', () => {
  it('writes a .traj that the committed JSON Schema accepts', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const traj = trajectoryFromEvents(events);
    const validate = new Ajv({ allErrors: true }).compile(trajJsonSchema());
    expect(validate(JSON.parse(JSON.stringify(traj)))).toBe(true);
    expect(validate.errors ?? null).toBeNull();
  });

  it('takes the submission from the last submit result and the exit status from the finish', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const traj = trajectoryFromEvents(events);
    expect(traj.info).toMatchObject({ exit_status: 'submitted', submission: PATCH });
    expect(traj.trajectory).toHaveLength(3);
  });

  it('sums tokens, cost and model calls over the steps', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    expect(trajectoryFromEvents(events).info.model_stats).toEqual({
      instance_cost: 0.75,
      tokens_sent: 600,
      tokens_received: 30,
      api_calls: 3,
    });
  });

  it("records the starting point as SWE-agent's RunSingleConfig, the run under caravel, and the exact calls", () => {
    const { events, threadId } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const traj = trajectoryFromEvents(events);
    // Exactly RunSingleConfig's keys: SWE-agent validates replay_config with extra="forbid".
    expect(JSON.parse(traj.replay_config ?? 'null')).toEqual({
      env: { repo: { type: 'local', path: '/tmp/sample', base_commit: BASE } },
      agent: {
        model: { name: 'scripted:fix.yaml' },
        tools: { parse_function: { type: 'function_calling' } },
      },
      problem_statement: { type: 'text', text: 'fix it', id: threadId },
    });
    expect((traj as Record<string, unknown>)['caravel']).toMatchObject({
      thread_id: threadId,
      repository: { clone_url: '/tmp/sample', base_commit: BASE, branch: 'caravel/1234abcd' },
    });
    expect(traj.trajectory[1]?.extra_info['caravel']).toMatchObject({
      tool_calls: [{ name: 'edit_file' }, { name: 'execute' }],
      results: [{ content: 'edited' }, { content: 'new' }],
    });
  });

  it('reads back with parseTraj and yields the tool calls as replay actions', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const text = JSON.stringify(trajectoryFromEvents(events));
    const actions = extractReplayActions(parseTraj(text, 'run.traj'));
    expect(actions.map((a) => a.toolCalls?.length)).toEqual([1, 2, 1]);
    expect(actions[0]?.toolCalls?.[0]).toEqual({
      id: 'call-0-0',
      type: 'function',
      function: { name: 'execute', arguments: '{"command":"cat a.txt"}' },
    });
  });

  it('has no submission when submit found no change, and closes an autosubmitted run with its summary', () => {
    const { events } = runEvents(
      [[{ name: 'submit', result: 'Submitted with no changes: the working tree matches HEAD.' }]],
      { exitStatus: 'exit_cost', summary: 'Exited' },
    );
    const traj = trajectoryFromEvents(events);
    expect(traj.info).toMatchObject({ exit_status: 'exit_cost', submission: null });
    expect(traj.trajectory.at(-1)?.observation).toBe('Exited');
  });

  it('opens the history with the system prompt and gives each step its query and state', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    (events[0]?.data as Record<string, unknown>)['systemPrompt'] = 'You are Caravel.';
    const traj = trajectoryFromEvents(events);
    expect(traj.history.slice(0, 2)).toMatchObject([
      { role: 'system', content: 'You are Caravel.', message_type: 'system_prompt' },
      { role: 'user', content: 'fix it' },
    ]);
    expect(traj.trajectory.map((step) => step.query.length)).toEqual([2, 4, 6]);
    expect(traj.trajectory[2]?.query).toEqual(traj.history.slice(0, 6));
    expect(traj.trajectory.map((step) => step.state)).toEqual([
      { working_dir: '.', open_file: 'n/a' },
      { working_dir: '.', open_file: 'a.txt' },
      { working_dir: '.', open_file: 'a.txt' },
    ]);
  });

  it("takes a step's state from the bundles' state commands when the run recorded it", () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const recorded = { open_file: '/workspace/a.txt', working_dir: '/workspace' };
    (events[2]?.data as Record<string, unknown>)['state'] = recorded;
    const traj = trajectoryFromEvents(events);
    expect(traj.trajectory.map((step) => step.state)).toEqual([
      { working_dir: '.', open_file: 'n/a' },
      recorded,
      { working_dir: '.', open_file: 'a.txt' },
    ]);
  });

  it('sends a requery the base history plus only the latest refused answer and its message', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const refused = (command: string) => ({
      content: `run ${command}`,
      toolCalls: [{ name: 'execute', args: { command } }],
      failure: 'blocked',
      message: `Operation '${command}' is not supported by this environment.`,
    });
    (events[2]?.data as Record<string, unknown>)['failedAttempts'] = [
      refused('vim'),
      refused('nano'),
    ];
    const traj = trajectoryFromEvents(events);
    const base = traj.history.slice(0, 3);
    expect(traj.trajectory[1]?.query).toEqual(base);
    expect(traj.trajectory[2]?.query).toEqual([
      ...base,
      { role: 'assistant', content: 'run vim', message_type: 'action' },
      {
        role: 'user',
        content: "Operation 'vim' is not supported by this environment.",
        message_type: 'user',
      },
    ]);
    expect(traj.trajectory[3]?.query.at(-1)?.content).toContain("'nano'");
  });

  it('keeps refused answers in the trajectory (with why) and out of the history', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const refused = {
      content: 'let me edit',
      toolCalls: [{ name: 'execute', args: { command: 'vim a.txt' } }],
      failure: 'blocked',
      message: "Operation 'vim' is not supported by this environment.",
    };
    (events[2]?.data as Record<string, unknown>)['failedAttempts'] = [refused];
    const traj = trajectoryFromEvents(events);

    expect(traj.trajectory).toHaveLength(4);
    expect(traj.trajectory[1]).toMatchObject({
      action: 'execute {"command":"vim a.txt"}',
      extra_info: { requery: { failure: { kind: 'blocked' }, message: refused.message } },
    });
    expect(traj.trajectory[2]?.extra_info).toMatchObject({ caravel: { step: 1 } });
    expect(JSON.stringify(traj.history)).not.toContain('vim a.txt');
  });

  it('a run that ended on refused answers (exit_format) records them and nothing else', () => {
    const { events } = runEvents([FIX_RUN[0] ?? []], { exitStatus: 'exit_format' });
    const last = events.at(-1);
    const refusedStep = {
      type: 'evt.run.step',
      sequence: (last?.sequence ?? 0) - 0.5,
      runId: last?.runId ?? null,
      data: {
        ...(events[1]?.data as Record<string, unknown>),
        step: 1,
        thought: '',
        action: '',
        observation: '',
        toolCalls: [],
        results: [],
        failedAttempts: ['a', 'b', 'c'].map((name) => ({
          content: '',
          toolCalls: [{ name, args: {} }],
          failure: 'format',
          message: `There is no tool named ${name}.`,
        })),
      },
    };
    const traj = trajectoryFromEvents([...events.slice(0, -1), refusedStep, ...events.slice(-1)]);

    expect(traj.trajectory).toHaveLength(4);
    expect(traj.trajectory.slice(1).map((step) => step.action)).toEqual(['a {}', 'b {}', 'c {}']);
    expect(traj.info.exit_status).toBe('exit_format');
  });

  it("takes an autosubmitted patch from the run's finish event", () => {
    const { events } = runEvents([FIX_RUN[0] ?? []], {
      exitStatus: 'submitted (exit_cost)',
      summary: 'Exited (autosubmitted)',
    });
    (events.at(-1)?.data as Record<string, unknown>)['submission'] = PATCH;
    expect(trajectoryFromEvents(events).info).toMatchObject({
      exit_status: 'submitted (exit_cost)',
      submission: PATCH,
    });
  });

  it('refuses a run that has not finished', () => {
    const { events, runId } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    expect(() => trajectoryFromEvents(events.slice(0, -1))).toThrow(
      `run ${runId} has no evt.run.finished event`,
    );
  });

  it('names the position of a malformed event', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const broken = events.map((e, i) =>
      i === 2 ? { ...e, data: { ...(e.data as object), step: -1 } } : e,
    );
    expect(() => trajectoryFromEvents(broken)).toThrow(
      /event #2 \(sequence 3\) evt\.run\.step is malformed: \$\.data\.step/,
    );
  });

  it('refuses events of two runs', () => {
    const one = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    const two = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    expect(() => trajectoryFromEvents([...one.events, ...two.events])).toThrow(/events of 2 runs/);
  });
});

describe('a round trip through Caravel', () => {
  it.each(['swe-agent-function-calling.traj', 'swe-agent-thought-action.traj'])(
    "keeps every field of SWE-agent's %s when written back",
    (name) => {
      const text = readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');
      const written = JSON.stringify(readTrajectoryFile(text, name));
      expect(JSON.parse(written)).toEqual(JSON.parse(text));
    },
  );

  it('exports a run whose query, state, system prompt and replay_config read back unchanged', () => {
    const { events } = runEvents(FIX_RUN, { exitStatus: 'submitted' });
    (events[0]?.data as Record<string, unknown>)['systemPrompt'] = 'You are Caravel.';
    const exported = JSON.stringify(trajectoryFromEvents(events));
    const again = JSON.stringify(readTrajectoryFile(exported, 'run.traj'));
    expect(JSON.parse(again)).toEqual(JSON.parse(exported));
  });
});
