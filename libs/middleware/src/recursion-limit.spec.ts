import { describe, it, expect } from '@jest/globals';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { buildMiddlewareStack } from './build-middleware-stack.js';
import { graphRecursionLimitFor } from './recursion-limit.js';
import { recordingTool } from './testing/agent-harness.js';
import { testStackOptions } from './testing/stack-options.js';
import { ScriptedChatModel, toolTurn } from './testing/scripted-chat-model.js';

const LIMIT = 6;

function agentAt(recursionLimit: number | undefined) {
  const stack = buildMiddlewareStack(
    testStackOptions({ modelCallLimit: LIMIT, stepLimitNoticeAt: 1, circuitBreakerThreshold: 3 })
      .options,
  );
  const loop = Array.from({ length: LIMIT + 2 }, () => toolTurn([{ name: 'ls', args: {} }]));
  const model = new ScriptedChatModel(loop);
  const tools = [
    recordingTool('ls').tool,
    recordingTool('reply', z.object({ text: z.string() })).tool,
  ];
  const agent = createAgent({ model, tools, middleware: stack });
  const limit = recursionLimit ?? graphRecursionLimitFor(stack, LIMIT);
  return () =>
    agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, { recursionLimit: limit });
}

describe('graphRecursionLimitFor', () => {
  it('gives the graph enough steps that the model-call limit is what ends a long run', async () => {
    const out = (await agentAt(undefined)()) as { exitStatus?: string };

    expect(out.exitStatus).toBe('exit_model_call_limit');
  });

  it("LangGraph's default of 25 steps would stop the full stack long before that", async () => {
    await expect(agentAt(25)()).rejects.toThrow(/Recursion limit of 25/);
  });
});
