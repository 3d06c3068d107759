import { describe, it, expect } from '@jest/globals';
import { modelCallLimitMiddleware } from './model-call-limit.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const loopTurns = (n: number) =>
  Array.from({ length: n }, () => toolTurn([{ name: 'ls', args: {} }]));

describe('modelCallLimitMiddleware', () => {
  it('ends the run at the limit with a final message and the call-limit exit status', async () => {
    const ls = recordingTool('ls');
    const model = new ScriptedChatModel(loopTurns(10));

    const out = await runAgent(model, [ls.tool], [modelCallLimitMiddleware({ limit: 3 })]);

    expect(model.calls).toHaveLength(3);
    expect(out.exitStatus).toBe('exit_model_call_limit');
    expect(out.messages.at(-1)?.content).toMatch(/limit of 3 model calls/);
  });

  it('lets a run that finishes under the limit end normally, without an exit status', async () => {
    const ls = recordingTool('ls');
    const model = new ScriptedChatModel([...loopTurns(2), textTurn('done')]);

    const out = await runAgent(model, [ls.tool], [modelCallLimitMiddleware({ limit: 3 })]);

    expect(model.calls).toHaveLength(3);
    expect(out.exitStatus).toBeUndefined();
    expect(out.messages.at(-1)?.content).toBe('done');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => modelCallLimitMiddleware({ limit: 0 })).toThrow(/CONFIG|positive integer/);
  });
});
