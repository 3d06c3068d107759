import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { call, scriptedRun, type Turn } from '../testing/scripted-run.js';

const dir = mkdtempSync(join(tmpdir(), 'caravel-subagents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TASK = { description: 'find the parser', prompt: 'Which file holds the parser?' };
const ANSWER = 'The parser is in src/parser.ts.';

/** A run through the real factory, stack, tools and step recorder on scripted models. */
const runWith = (main: Turn[], sub?: Turn[], env?: Record<string, string>) =>
  scriptedRun(dir, main, sub, env);

type Step = {
  actor: string;
  toolCalls: { name: string }[];
  results: { name: string; content: string; status: string }[];
  failedAttempts: { toolCalls: { name: string }[] }[];
};

describe('the task tool', () => {
  it('runs a subagent on the subagent model, records it as a child run, and answers with its answer', async () => {
    const { bus, sub, traj, replies } = await runWith(
      [call('task', TASK), call('reply_to_user', { text: ANSWER }), { content: 'done' }],
      [call('task', TASK), call('ls'), { content: ANSWER }],
    );
    const steps = bus.dataOf('evt.run.step') as Step[];
    const own = steps.filter((step) => step.actor === 'agent');
    const child = steps.filter((step) => step.actor.startsWith('subagent:'));
    const framing = bus.dataOf('evt.run.subagent');

    // The parent read the subagent's final message as its task result.
    const taskResult = own.flatMap((step) => step.results).find((r) => r.name === 'task');
    expect(taskResult).toMatchObject({ status: 'success', content: ANSWER });
    expect(replies).toEqual([ANSWER]);
    // Its own model, its steps under its actor, framed by started/finished.
    expect(framing.map((e) => [e['phase'], e['model']])).toEqual([
      ['started', sub],
      ['finished', sub],
    ]);
    const subagentRunId = String(framing[0]?.['subagentRunId']);
    expect(new Set(child.map((step) => step.actor))).toEqual(
      new Set([`subagent:${subagentRunId}`]),
    );
    expect(framing[1]).toMatchObject({ exitStatus: 'submitted', result: ANSWER, modelCalls: 3 });
    // It could not delegate: task was not among its tools.
    const delegated = child.flatMap((step) => [
      ...step.results.filter((r) => r.name === 'task' && r.status === 'success'),
      ...step.toolCalls.filter((c) => c.name === 'task'),
    ]);
    expect(delegated).toEqual([]);
    expect(
      child.flatMap((step) => step.failedAttempts.flatMap((a) => a.toolCalls.map((c) => c.name))),
    ).toContain('task');
    expect(child.flatMap((step) => step.toolCalls.map((c) => c.name))).toEqual(['ls']);

    // The .traj: the run's own steps on top, the subagent as a child run.
    const caravel = traj['caravel'] as { subagents?: Record<string, unknown>[] };
    expect(traj.trajectory.map((step) => step.action.split(' ')[0])).toEqual([
      'task',
      'reply_to_user',
      '',
    ]);
    expect(caravel.subagents).toHaveLength(1);
    const childTraj = caravel.subagents?.[0] as {
      run_id: string;
      model: string;
      exit_status: string;
      result: string;
      trajectory: { action: string }[];
      history: { content: unknown }[];
    };
    expect(childTraj).toMatchObject({
      run_id: subagentRunId,
      model: sub,
      exit_status: 'submitted',
      result: ANSWER,
    });
    expect(childTraj.history[0]?.content).toBe(TASK.prompt);
    expect(childTraj.trajectory.map((step) => step.action.split(' ')[0])).toEqual([
      'task',
      'ls',
      '',
    ]);
  });

  it("runs the subagent on the run's own model when no subagent model is set", async () => {
    const { bus } = await runWith([
      call('task', TASK),
      { content: ANSWER },
      call('reply_to_user', { text: ANSWER }),
      { content: 'done' },
    ]);
    const started = bus.dataOf('evt.run.started')[0];
    const framing = bus.dataOf('evt.run.subagent');
    expect(framing[0]?.['model']).toBe(started?.['model']);
  });
});

describe("a subagent's share of the run's budget", () => {
  it('stops the subagent at its share; the parent reads why, goes on, and counts what it spent', async () => {
    const ls = { ...call('ls'), cost: 0.2 };
    const { bus } = await runWith(
      [call('task', TASK), call('reply_to_user', { text: 'partial' }), { content: 'done' }],
      [ls, ls, ls, { content: 'never reached' }],
      { RUN_BUDGET_USD: '1', RUN_SUBAGENT_SHARE: '0.5' },
    );
    const finished = bus.dataOf('evt.run.subagent').find((e) => e['phase'] === 'finished');
    const taskResult = (bus.dataOf('evt.run.step') as Step[])
      .flatMap((step) => step.results)
      .find((r) => r.name === 'task');

    expect(finished).toMatchObject({ exitStatus: 'exit_cost', modelCalls: 2 });
    expect(finished?.['costUsd']).toBeCloseTo(0.4);
    expect(taskResult?.content).toMatch(/^The subagent stopped before it finished \(exit_cost\)/);
  });
});

describe('write_todos', () => {
  it('publishes the list as evt.run.todos; a malformed list is refused with its fault named, and the fixed one goes out', async () => {
    const todos = [
      { content: 'Find the parser', status: 'completed' },
      { content: 'Fix it', status: 'in_progress' },
    ];
    const { bus, traj } = await runWith([
      call('write_todos', { todos: [{ content: 'Fix it', status: 'doing' }] }),
      call('write_todos', { todos }),
      call('reply_to_user', { text: 'fixed' }),
      { content: 'done' },
    ]);
    const steps = bus.dataOf('evt.run.step') as (Step & {
      failedAttempts: { message: string }[];
    })[];
    const results = steps.flatMap((step) => step.results).filter((r) => r.name === 'write_todos');
    const refused = steps.flatMap((step) => step.failedAttempts);

    // The stack checks a call's arguments with the tool's own schema before it runs: the model
    // is told what is wrong and answers again (SWE-agent's requery), nothing is published.
    expect(refused.map((attempt) => attempt.message)).toEqual([
      expect.stringMatching(/todos\.0\.status/),
    ]);
    expect(results.map((r) => r.status)).toEqual(['success']);
    expect(bus.dataOf('evt.run.todos').map((e) => e['todos'])).toEqual([todos]);
    expect(traj.trajectory[0]?.extra_info['requery']).toBeDefined();
  });
});
