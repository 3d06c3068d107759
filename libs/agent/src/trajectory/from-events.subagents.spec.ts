import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { trajectoryFromEvents } from './from-events.js';
import type { RunEventInput } from './from-events.parse.js';
import type { CaravelSubagentTraj } from './from-events.subagents.js';

const threadId = randomUUID();
const runId = randomUUID();
const childId = randomUUID();

const event = (type: string, data: Record<string, unknown>): RunEventInput => ({
  type: `evt.run.${type}`,
  runId,
  data: { threadId, runId, ...data },
});

function step(n: number, actor: string, name: string, result: string) {
  return event('step', {
    step: n,
    actor,
    action: name,
    observation: result,
    toolCalls: [{ id: `${actor}-${n}`, name, args: {} }],
    results: [{ toolCallId: `${actor}-${n}`, name, content: result, status: 'success' }],
    usage: { inputTokens: 10, outputTokens: 1, costUsd: 0.5 },
  });
}

const framing = (phase: 'started' | 'finished', extra: Record<string, unknown> = {}) =>
  event('subagent', {
    subagentRunId: childId,
    toolCallId: 'agent-0',
    phase,
    model: 'scripted:sub.json',
    description: 'find it',
    ...extra,
  });

const actor = `subagent:${childId}`;

function events(finished: boolean): RunEventInput[] {
  return [
    event('started', { runner: 'r', model: 'scripted:main.json', prompt: 'fix it' }),
    framing('started', { prompt: 'Where is it?' }),
    step(0, actor, 'ls', 'a.ts'),
    step(1, actor, 'grep', 'a.ts:1'),
    ...(finished ? [framing('finished', { exitStatus: 'submitted', result: 'in a.ts' })] : []),
    step(0, 'agent', 'task', 'in a.ts'),
    event('finished', { outcome: 'completed', exitStatus: 'submitted', summary: '' }),
  ];
}

describe("a run's subagents in its .traj", () => {
  it("keeps the subagent's steps (numbered on their own) out of the run's and writes them as a child run", () => {
    const traj = trajectoryFromEvents(events(true));
    const [child] = (traj['caravel'] as { subagents: CaravelSubagentTraj[] }).subagents;

    expect(traj.trajectory.map((s) => s.action)).toEqual(['task']);
    expect(traj.info.model_stats.api_calls).toBe(1);
    expect(child).toMatchObject({
      run_id: childId,
      tool_call_id: 'agent-0',
      model: 'scripted:sub.json',
      description: 'find it',
      exit_status: 'submitted',
      result: 'in a.ts',
    });
    expect(child?.trajectory.map((s) => s.action)).toEqual(['ls', 'grep']);
    expect(child?.history[0]).toMatchObject({ role: 'user', content: 'Where is it?' });
    expect(child?.info.model_stats).toMatchObject({ api_calls: 2, instance_cost: 1 });
  });

  it('calls a subagent cut short with its run exit_interrupted', () => {
    const traj = trajectoryFromEvents(events(false));
    const [child] = (traj['caravel'] as { subagents: CaravelSubagentTraj[] }).subagents;
    expect(child).toMatchObject({ exit_status: 'exit_interrupted', result: null });
  });

  it('writes no subagents for a run that had none', () => {
    const traj = trajectoryFromEvents(
      events(true).filter((e) => !JSON.stringify(e).includes(childId)),
    );
    expect(traj['caravel']).not.toHaveProperty('subagents');
  });
});
