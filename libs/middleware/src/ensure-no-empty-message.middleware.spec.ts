import { describe, it, expect } from '@jest/globals';
import { ensureNoEmptyMessageMiddleware } from './ensure-no-empty-message.middleware.js';
import { recordingTool, runAgent, toolMessages } from './testing/agent-harness.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const reply = () => recordingTool('slack_thread_reply');

describe('ensureNoEmptyMessageMiddleware', () => {
  it('keeps the run going with a synthetic completion call when the model stops without replying', async () => {
    const replyTool = reply();
    const model = new ScriptedChatModel([
      textTurn('I think I am done'),
      toolTurn([{ name: 'slack_thread_reply', args: { text: 'Done: fixed it' } }]),
      textTurn('bye'),
    ]);

    const out = await runAgent(
      model,
      [replyTool.tool],
      [ensureNoEmptyMessageMiddleware({ replyToolName: 'slack_thread_reply' })],
    );

    const [nudge] = toolMessages(out.messages);
    expect(nudge?.name).toBe('confirming_completion');
    expect(nudge?.content).toMatch(/without replying to the user with slack_thread_reply/);
    expect(replyTool.received).toEqual([{ text: 'Done: fixed it' }]);
    expect(out.messages.at(-1)?.content).toBe('bye');
    expect(out.exitStatus).toBeUndefined();
  });

  it('lets the run end once the user has been replied to', async () => {
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'slack_thread_reply', args: { text: 'hi' } }]),
      textTurn('finished'),
    ]);

    const out = await runAgent(
      model,
      [reply().tool],
      [ensureNoEmptyMessageMiddleware({ replyToolName: 'slack_thread_reply' })],
    );

    expect(model.calls).toHaveLength(2);
    expect(toolMessages(out.messages).map((m) => m.name)).toEqual(['slack_thread_reply']);
  });

  it('is bounded: after maxNudges it ends the run with exit_no_reply', async () => {
    const model = new ScriptedChatModel([
      textTurn('a'),
      textTurn('b'),
      textTurn('c'),
      textTurn('d'),
    ]);

    const out = await runAgent(
      model,
      [reply().tool],
      [ensureNoEmptyMessageMiddleware({ replyToolName: 'slack_thread_reply', maxNudges: 2 })],
    );

    expect(model.calls).toHaveLength(3);
    expect(toolMessages(out.messages)).toHaveLength(2);
    expect(out.exitStatus).toBe('exit_no_reply');
  });

  it('shows the model the synthetic tool so the nudged call is well-formed for providers', async () => {
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'slack_thread_reply', args: {} }]),
      textTurn('x'),
    ]);

    await runAgent(
      model,
      [reply().tool],
      [ensureNoEmptyMessageMiddleware({ replyToolName: 'slack_thread_reply' })],
    );

    expect(model.boundToolNames[0]).toEqual(['slack_thread_reply', 'confirming_completion']);
  });
});
