import { describe, it, expect } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent, tool, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { runLimitsMiddleware, type RunLimitsOptions } from './run-limits.middleware.js';
import { exitOf } from './testing/loop-exits.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { FREE_PRICING, ManualClock, RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

function costing(message: AIMessage, costUsd: number): AIMessage {
  message.response_metadata = { ...message.response_metadata, cost_usd: costUsd };
  return message;
}

function limits(overrides: Partial<RunLimitsOptions> & { clock?: ManualClock } = {}) {
  const events = new RecordingEvents();
  const clock = overrides.clock ?? new ManualClock();
  const options: RunLimitsOptions = {
    limits: { maxCostUsd: 0, maxWallTimeMs: 0, maxInputTokens: 0 },
    execution: { maxTotalExecutionSeconds: 0, maxConsecutiveTimeouts: 0 },
    stuckThreshold: 0,
    pricing: FREE_PRICING,
    promptMessageId: 'prompt-1',
    clock,
    events,
    ...overrides,
  };
  return { middleware: runLimitsMiddleware(options), events, clock };
}

const ls = () => toolTurn([{ name: 'ls', args: {} }]);

/** A shell tool whose every command times out (the artifact says so, as `execute`'s does). */
function timingOutShell() {
  return tool(
    async (_args: unknown, config: { toolCall?: { id?: string } }) =>
      new ToolMessage({
        content: 'The command timed out.',
        tool_call_id: config.toolCall?.id ?? '',
        artifact: { timedOut: true },
      }),
    { name: 'execute', description: 'shell (test)', schema: z.object({ command: z.string() }) },
  );
}

describe('runLimitsMiddleware', () => {
  it('stops before the call that could cross the budget: that call is never made', async () => {
    const { middleware, events } = limits({
      limits: { maxCostUsd: 2.5, maxWallTimeMs: 0, maxInputTokens: 0 },
    });
    const model = new ScriptedChatModel([
      costing(ls(), 1),
      costing(ls(), 1),
      costing(ls(), 1),
      textTurn('never reached'),
    ]);

    const reason = await exitOf(runAgent(model, [recordingTool('ls').tool], [middleware]));

    expect(reason).toBe('exit_cost');
    expect(model.calls).toHaveLength(2);
    const costs = events.events.filter((e) => e.type === 'model_call_cost');
    expect(costs.map((e) => e.type === 'model_call_cost' && e.totals.costUsd)).toEqual([1, 2]);
    expect(events.events.at(-1)).toMatchObject({ type: 'run_limit_reached', reason: 'exit_cost' });
  });

  it('pauses instead at the budget when asked to: the port hears what was spent, nothing else is called', async () => {
    const pauses: unknown[] = [];
    const { middleware, events } = limits({
      limits: { maxCostUsd: 2.5, maxWallTimeMs: 0, maxInputTokens: 0 },
      budgetPause: { pause: (pause) => Promise.resolve(void pauses.push(pause)) },
    });
    const model = new ScriptedChatModel([costing(ls(), 1), costing(ls(), 1), costing(ls(), 1)]);

    const reason = await exitOf(runAgent(model, [recordingTool('ls').tool], [middleware]));

    expect(reason).toBe('exit_budget_paused');
    expect(model.calls).toHaveLength(2);
    expect(pauses).toEqual([{ spentUsd: 2, budgetUsd: 2.5, nextCallUsd: 1 }]);
    expect(events.events.at(-1)).toMatchObject({ reason: 'exit_budget_paused' });
  });

  it('ends exit_cost as before when the pause cannot be recorded', async () => {
    const { middleware } = limits({
      limits: { maxCostUsd: 1.5, maxWallTimeMs: 0, maxInputTokens: 0 },
      budgetPause: { pause: () => Promise.reject(new Error('database down')) },
    });
    const model = new ScriptedChatModel([costing(ls(), 1), costing(ls(), 1)]);

    expect(await exitOf(runAgent(model, [recordingTool('ls').tool], [middleware]))).toBe(
      'exit_cost',
    );
    expect(model.calls).toHaveLength(1);
  });

  it("counts a subagent's spending, carried on its task result, against the run's budget", async () => {
    const { middleware } = limits({
      limits: { maxCostUsd: 2.5, maxWallTimeMs: 0, maxInputTokens: 0 },
    });
    const task = tool(
      async (_args: unknown, config: { toolCall?: { id?: string } }) =>
        new ToolMessage({
          content: 'the answer',
          tool_call_id: config.toolCall?.id ?? '',
          artifact: { costUsd: 2 },
        }),
      { name: 'task', description: 'subagent (test)', schema: z.object({}) },
    );
    const model = new ScriptedChatModel([
      costing(toolTurn([{ name: 'task', args: {} }]), 0.25),
      costing(ls(), 0.25),
      textTurn('never reached'),
    ]);

    const reason = await exitOf(runAgent(model, [task, recordingTool('ls').tool], [middleware]));

    expect(reason).toBe('exit_cost');
    expect(model.calls).toHaveLength(2);
  });

  it('prices answers that report no cost from the list price, and estimates before the call', async () => {
    const pricing = {
      estimateCallUsd: (inputTokens: number) => inputTokens * 0.001,
      costUsd: ({ inputTokens, outputTokens }: { inputTokens: number; outputTokens: number }) =>
        inputTokens * 0.001 + outputTokens * 0.002,
    };
    const { middleware, events } = limits({
      pricing,
      limits: { maxCostUsd: 10, maxWallTimeMs: 0, maxInputTokens: 0 },
    });
    const turn = new AIMessage({
      content: 'done',
      usage_metadata: { input_tokens: 100, output_tokens: 50, total_tokens: 150 },
    });
    const model = new ScriptedChatModel([turn]);

    const out = await runAgent(model, [], [middleware]);

    const answer = out.messages.at(-1) as AIMessage;
    expect(answer.response_metadata['cost_usd']).toBeCloseTo(0.2);
    expect(events.events[0]).toMatchObject({ type: 'model_call_cost', costUsd: 0.2 });
  });

  it('ends with exit_context before sending a prompt larger than the context window', async () => {
    const { middleware } = limits({
      limits: { maxCostUsd: 0, maxWallTimeMs: 0, maxInputTokens: 10 },
    });
    const model = new ScriptedChatModel([textTurn('never')]);

    const reason = await exitOf(runAgent(model, [], [middleware], 'x'.repeat(400)));

    expect(reason).toBe('exit_context');
    expect(model.calls).toHaveLength(0);
  });

  it('ends with exit_total_execution_time once the run is past its wall-clock limit', async () => {
    const clock = new ManualClock();
    const { middleware } = limits({
      clock,
      limits: { maxCostUsd: 0, maxWallTimeMs: 60_000, maxInputTokens: 0 },
    });
    const advancing = tool(
      async () => {
        clock.advance(61_000);
        return 'ok';
      },
      { name: 'ls', description: 'ls (test)', schema: z.object({}) },
    );
    const model = new ScriptedChatModel([ls(), textTurn('never')]);

    expect(await exitOf(runAgent(model, [advancing], [middleware]))).toBe(
      'exit_total_execution_time',
    );
    expect(model.calls).toHaveLength(1);
  });

  it('ends with exit_command_timeout after consecutive timeouts, before the next model call', async () => {
    const { middleware } = limits({
      execution: { maxTotalExecutionSeconds: 0, maxConsecutiveTimeouts: 2 },
    });
    const call = () => toolTurn([{ name: 'execute', args: { command: 'sleep 999' } }]);
    const model = new ScriptedChatModel([call(), call(), textTurn('never')]);

    expect(await exitOf(runAgent(model, [timingOutShell()], [middleware]))).toBe(
      'exit_command_timeout',
    );
    expect(model.calls).toHaveLength(2);
  });

  it('ends with exit_stuck when the same action keeps getting the same observation', async () => {
    const { middleware } = limits({ stuckThreshold: 3 });
    const model = new ScriptedChatModel([ls(), ls(), ls(), textTurn('never')]);

    expect(await exitOf(runAgent(model, [recordingTool('ls').tool], [middleware]))).toBe(
      'exit_stuck',
    );
    expect(model.calls).toHaveLength(3);
  });

  it('a resumed run counts what it spent before the restart, and only its own spending', async () => {
    const history = () => [
      new HumanMessage({ id: 'older-prompt', content: 'an earlier run' }),
      costing(new AIMessage({ id: 'a0', content: 'old run: not counted' }), 5),
      new HumanMessage({ id: 'prompt-1', content: 'this run' }),
      costing(new AIMessage({ id: 'a1', content: 'step 1' }), 1),
      costing(new AIMessage({ id: 'a2', content: 'step 2' }), 1),
    ];
    const resume = async (maxCostUsd: number) => {
      const { middleware } = limits({
        limits: { maxCostUsd, maxWallTimeMs: 0, maxInputTokens: 0 },
      });
      const model = new ScriptedChatModel([costing(textTurn('one more'), 1)]);
      const agent = createAgent({
        model,
        tools: [],
        middleware: [middleware] as AgentMiddleware[],
      });
      const reason = await exitOf(agent.invoke({ messages: history() }));
      return { reason, calls: model.calls.length };
    };

    // $2 spent in this run plus a $1 call fits $3.5 (the older run's $5 does not count)...
    expect(await resume(3.5)).toEqual({ reason: undefined, calls: 1 });
    // ...but not $2.5, so that call is never made.
    expect(await resume(2.5)).toEqual({ reason: 'exit_cost', calls: 0 });
  });
});
