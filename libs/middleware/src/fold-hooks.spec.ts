import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent, createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { buildMiddlewareStack } from './build-middleware-stack.js';
import { findAppError } from './error-inspection.js';
import { FOLDED_MODEL_HOOKS_NAME, FOLDED_HOOKS_NAME, foldHooks } from './fold-hooks.js';
import { graphRecursionLimitFor } from './recursion-limit.js';
import { recordingTool, runAgent, throwingTool } from './testing/agent-harness.js';
import { testStackOptions } from './testing/stack-options.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';
import type { QueuedMessage } from './ports.js';

/** What a conversation says, without the random ids LangGraph gives id-less messages. */
function transcript(messages: BaseMessage[]) {
  return messages.map((m) => ({
    type: m.type,
    name: m.name,
    content: m.content,
    calls: AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => [c.name, c.args, c.id]) : [],
    ...(ToolMessage.isInstance(m) ? { answers: m.tool_call_id, status: m.status } : {}),
  }));
}

const reply = () => recordingTool('reply', z.object({ text: z.string() }));
const ls = () => recordingTool('ls');
const outage = () => throwingTool('execute', new AppError('DEPENDENCY_UNAVAILABLE', 'down'));
const lsTurn = () => toolTurn([{ name: 'ls', args: {} }]);
const replyTurn = (text: string) => toolTurn([{ name: 'reply', args: { text } }]);
const execTurn = () => toolTurn([{ name: 'execute', args: {} }]);
const unparsedTurn = () =>
  new AIMessage({
    content: '',
    invalid_tool_calls: [
      { name: 'ls', args: '{"path": "src"', id: 'bad-1', type: 'invalid_tool_call' },
    ],
  });

interface Scenario {
  turns: () => ConstructorParameters<typeof ScriptedChatModel>[0];
  overrides: Parameters<typeof testStackOptions>[0];
  /** The messages queued for the thread before each model call. */
  queued: QueuedMessage[][];
}

/** Scenarios that exercise every node hook of the stack, its jumps and its state. */
const SCENARIOS: Record<string, Scenario> = {
  'a task answered through the reply tool': {
    turns: () => [lsTurn(), replyTurn('done'), textTurn('bye')],
    overrides: {},
    queued: [],
  },
  'the model-call limit, after the step-limit notice': {
    turns: () => [lsTurn(), lsTurn(), lsTurn(), lsTurn()],
    overrides: { modelCallLimit: 3, stepLimitNoticeAt: 1 },
    queued: [],
  },
  'nudges, then no reply': {
    turns: () => [textTurn('a'), textTurn('b'), textTurn('c'), textTurn('d')],
    overrides: {},
    queued: [],
  },
  'messages queued before the second and third model calls': {
    turns: () => [lsTurn(), lsTurn(), replyTurn('seen both'), textTurn('bye')],
    overrides: {},
    queued: [
      [],
      [{ id: 'q1', text: 'also this', author: 'a' }],
      [{ id: 'q2', text: 'and', author: 'b' }],
    ],
  },
  'a call whose arguments did not parse, repaired after the model answered': {
    turns: () => [unparsedTurn(), replyTurn('done'), textTurn('bye')],
    overrides: {},
    queued: [],
  },
  'the sandbox circuit breaker': {
    turns: () => [execTurn(), execTurn(), execTurn()],
    overrides: {},
    queued: [],
  },
};

async function runScenario(scenario: Scenario, fold: boolean) {
  const { options: o, notifier } = testStackOptions(
    scenario.overrides,
    scenario.queued.map((batch) => [...batch]),
  );
  const stack = buildMiddlewareStack(o);
  const model = new ScriptedChatModel(scenario.turns());
  const out = await runAgent(
    model,
    [reply().tool, ls().tool, outage()],
    fold ? foldHooks(stack) : stack,
  );
  return {
    transcript: transcript(out.messages),
    exitStatus: out.exitStatus,
    modelCalls: model.calls.length,
    notices: notifier.notices,
  };
}

function nodesOf(middleware: AgentMiddleware[]): string[] {
  const agent = createAgent({
    model: new ScriptedChatModel([]),
    tools: [reply().tool],
    middleware,
  });
  return Object.keys(agent.graph.nodes).filter((n) => n !== '__start__');
}

describe('foldHooks', () => {
  it('runs the model hooks in the model node, the agent hooks in one node each, and keeps every unit', () => {
    const stack = buildMiddlewareStack(testStackOptions().options);
    const folded = foldHooks(stack);

    expect(nodesOf(stack).length).toBeGreaterThan(12);
    expect(nodesOf(folded).sort()).toEqual(
      [
        `${FOLDED_HOOKS_NAME}.after_agent`,
        `${FOLDED_HOOKS_NAME}.before_agent`,
        'model_request',
        'tools',
      ].sort(),
    );
    const units = folded.slice(2);
    expect(folded.slice(0, 2).map((m) => m.name)).toEqual([
      FOLDED_MODEL_HOOKS_NAME,
      FOLDED_HOOKS_NAME,
    ]);
    expect(units.map((m) => m.name)).toEqual(stack.map((m) => m.name));
    // A unit whose model-call wrapper reads its state fields has its wrappers wrapped to be
    // given them; the others are kept as they are.
    const reads = (m: AgentMiddleware) =>
      m.wrapModelCall !== undefined && m.stateSchema !== undefined;
    expect(units.map((m, i) => m.wrapModelCall === stack[i]!.wrapModelCall)).toEqual(
      stack.map((m) => !reads(m)),
    );
    expect(units.map((m, i) => m.wrapToolCall === stack[i]!.wrapToolCall)).toEqual(
      stack.map((m) => !reads(m) || m.wrapToolCall === undefined),
    );
    expect(units.map((m) => m.wrapToolCall === undefined)).toEqual(
      stack.map((m) => m.wrapToolCall === undefined),
    );
    expect(units.filter(reads)).toEqual([]);
  });

  for (const [name, scenario] of Object.entries(SCENARIOS))
    it(`runs the stack's hooks to the same conversation and outcome: ${name}`, async () => {
      const unfolded = await runScenario(scenario, false);
      const folded = await runScenario(scenario, true);

      expect(folded).toEqual(unfolded);
    });

  it('is given a recursion limit under which the model-call limit, not the graph, ends a long run', async () => {
    const limit = 6;
    const { options: o } = testStackOptions({ modelCallLimit: limit });
    const folded = foldHooks(buildMiddlewareStack(o));
    const model = new ScriptedChatModel(Array.from({ length: limit + 2 }, () => lsTurn()));
    const agent = createAgent({ model, tools: [ls().tool, reply().tool], middleware: folded });

    const out = (await agent.invoke(
      { messages: [{ role: 'user', content: 'go' }] },
      { recursionLimit: graphRecursionLimitFor(folded, limit) },
    )) as { exitStatus?: string };

    expect(out.exitStatus).toBe('exit_model_call_limit');
    expect(model.calls).toHaveLength(limit);
    expect(graphRecursionLimitFor(folded, limit)).toBeLessThan(
      graphRecursionLimitFor(buildMiddlewareStack(o), limit),
    );
  });

  it('stops the before-hooks at a jump, as the graph routed away from it', async () => {
    const seen: string[] = [];
    const stopper = createMiddleware({
      name: 'stopper',
      beforeModel: {
        canJumpTo: ['end'],
        hook: () => {
          seen.push('stopper');
          return { jumpTo: 'end', messages: [new AIMessage('stopped')] };
        },
      },
    });
    const after = createMiddleware({
      name: 'after',
      beforeModel: () => void seen.push('after'),
    });
    const model = new ScriptedChatModel([]);

    const out = await runAgent(model, [reply().tool], foldHooks([stopper, after]));

    expect(seen).toEqual(['stopper']);
    expect(model.calls).toHaveLength(0);
    expect(out.messages.at(-1)?.content).toBe('stopped');
  });

  it('runs after-hooks last to first, each seeing its own fields as the one before left them', async () => {
    const seen: unknown[] = [];
    const unit = (name: string, field: string) =>
      createMiddleware({
        name,
        stateSchema: z.object({ [field]: z.number().default(0) }),
        afterModel: (state: Record<string, unknown>) => {
          seen.push([name, Object.keys(state).sort()]);
          return { [field]: 1 };
        },
      });
    const model = new ScriptedChatModel([textTurn('bye')]);

    const out = await runAgent(model, [reply().tool], foldHooks([unit('a', 'x'), unit('b', 'y')]));

    expect(seen).toEqual([
      ['b', ['messages', 'y']],
      ['a', ['messages', 'x']],
    ]);
    expect([out['x'], out['y']]).toEqual([1, 1]);
  });

  it("gives a unit's model-call and tool-call wrappers its fields, as LangChain gives the unfolded unit", async () => {
    const seen: unknown[] = [];
    const planner = createMiddleware({
      name: 'planner',
      stateSchema: z.object({ planning: z.boolean().optional(), turns: z.number().default(0) }),
      beforeAgent: () => ({ planning: true }),
      wrapModelCall: (request, handler) => {
        const { messages, ...fields } = request.state;
        seen.push(['model', fields, messages.length]);
        return handler(request);
      },
      wrapToolCall: (request, handler) => {
        const { messages, ...fields } = request.state;
        seen.push(['tool', fields, messages.length]);
        return handler(request);
      },
    });
    const run = (middleware: AgentMiddleware[]) =>
      runAgent(new ScriptedChatModel([lsTurn(), textTurn('bye')]), [ls().tool], middleware);

    await run([planner]);
    const unfolded = seen.splice(0);
    await run(foldHooks([planner]));

    expect(unfolded).toEqual([
      ['model', { planning: true, turns: 0 }, 1],
      ['tool', { planning: true, turns: 0 }, 2],
      ['model', { planning: true, turns: 0 }, 3],
    ]);
    expect(seen).toEqual(unfolded);
  });

  it('refuses an after-hook that may jump: its routing depends on its place', () => {
    const jumper = createMiddleware({
      name: 'jumper',
      afterModel: { canJumpTo: ['model'], hook: () => undefined },
    });

    expect(() => foldHooks([jumper])).toThrow(/jumper.afterModel may jump/);
  });

  it('refuses a jump the hook did not declare', async () => {
    const liar = createMiddleware({
      name: 'liar',
      beforeModel: { canJumpTo: ['end'], hook: () => ({ jumpTo: 'tools' as const }) },
    });
    const failure = await runAgent(new ScriptedChatModel([]), [reply().tool], foldHooks([liar]))
      .then(() => undefined)
      .catch((e: unknown) => e);

    expect(String(findAppError(failure) ?? failure)).toMatch(/Invalid jump target: tools/);
  });
});
