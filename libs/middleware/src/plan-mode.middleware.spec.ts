import { describe, expect, it } from '@jest/globals';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { planModeMiddleware, type AgentMode } from './plan-mode.middleware.js';
import { recordingTool, toolMessages } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const MUTATING = ['write_file', 'execute', 'commit_and_open_pr'];

function setup(
  turns: ConstructorParameters<typeof ScriptedChatModel>[0],
  initialMode: AgentMode = 'edit',
) {
  const model = new ScriptedChatModel(turns);
  const events = new RecordingEvents();
  const write = recordingTool('write_file', z.object({ path: z.string() }));
  const enter = recordingTool('enter_plan_mode', z.object({ user_request: z.string() }));
  const approve = recordingTool('approve_plan', z.object({}));
  const read = recordingTool('read_file', z.object({ path: z.string() }));
  const agent = createAgent({
    model,
    tools: [write.tool, enter.tool, approve.tool, read.tool],
    middleware: [planModeMiddleware({ initialMode, mutatingTools: MUTATING, events })],
    checkpointer: new MemorySaver(),
  });
  const run = async (prompt: string) =>
    (await agent.invoke(
      { messages: [{ role: 'user', content: prompt }] },
      { configurable: { thread_id: 'thread-1' }, recursionLimit: 40 },
    )) as { messages: Parameters<typeof toolMessages>[0]; planMode?: boolean };
  return { model, events, write, enter, approve, run };
}

const offered = (model: ScriptedChatModel) => model.boundToolNames;

describe('planModeMiddleware', () => {
  it('hides every mutating tool on every model call while planning, and refuses one named anyway', async () => {
    const { model, write, run } = setup([
      toolTurn([{ name: 'enter_plan_mode', args: { user_request: 'make a plan first' } }]),
      toolTurn([{ name: 'read_file', args: { path: 'a.ts' } }]),
      toolTurn([{ name: 'write_file', args: { path: 'a.ts' } }]),
      textTurn('here is the plan'),
    ]);

    const out = await run('Please make a plan first, then wait for me.');

    expect(offered(model)[0]).toContain('write_file');
    for (const names of offered(model).slice(1)) {
      expect(names).not.toContain('write_file');
      expect(names).toEqual(expect.arrayContaining(['read_file', 'approve_plan']));
    }
    expect(offered(model).length).toBe(4);
    expect(write.received).toEqual([]);
    const refused = toolMessages(out.messages).find((m) => m.name === 'write_file');
    expect(refused?.status).toBe('error');
    expect(out.planMode).toBe(true);
  });

  it('starts plan mode only when the user asked for it in their own words', async () => {
    const { enter, run } = setup([
      toolTurn([{ name: 'enter_plan_mode', args: { user_request: 'plan it all out' } }]),
      textTurn('ok'),
    ]);

    const out = await run('fix the failing test');

    expect(enter.received).toEqual([]);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/explicitly asks for a plan/);
    expect(out.planMode).toBe(false);
  });

  it('keeps planning across runs of the thread until approval, then a later run edits again', async () => {
    const { model, write, run } = setup([
      toolTurn([{ name: 'enter_plan_mode', args: { user_request: 'plan first' } }]),
      textTurn('plan saved'),
      toolTurn([{ name: 'write_file', args: { path: 'x' } }]),
      textTurn('still planning'),
      toolTurn([{ name: 'approve_plan', args: {} }]),
      textTurn('approved'),
      toolTurn([{ name: 'write_file', args: { path: 'x' } }]),
      textTurn('edited'),
    ]);

    await run('plan first please');
    const second = await run('go on');
    expect(second.planMode).toBe(true);
    expect(offered(model)[2]).not.toContain('write_file');
    await run('approved, go ahead');
    const fourth = await run('now edit');

    expect(fourth.planMode).toBe(false);
    expect(offered(model)[6]).toContain('write_file');
    expect(write.received).toEqual([{ path: 'x' }]);
  });

  it('starts each run in the configured initial mode', async () => {
    const { model, run } = setup([textTurn('planning')], 'plan');

    const out = await run('what would you change?');

    expect(out.planMode).toBe(true);
    expect(offered(model)[0]).not.toContain('write_file');
  });

  it('refuses approve_plan when there is no plan to approve', async () => {
    const { approve, run } = setup([
      toolTurn([{ name: 'approve_plan', args: {} }]),
      textTurn('ok'),
    ]);

    const out = await run('approve it');

    expect(approve.received).toEqual([]);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/no plan awaiting approval/);
  });
});
