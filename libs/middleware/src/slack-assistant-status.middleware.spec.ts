import { describe, expect, it } from '@jest/globals';
import type { AssistantStatusPort } from './ports.js';
import { slackAssistantStatusMiddleware } from './slack-assistant-status.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

class RecordingStatus implements AssistantStatusPort {
  readonly calls: string[] = [];
  constructor(private readonly failSet = false) {}
  async setStatus(status: string): Promise<void> {
    this.calls.push(`set:${status}`);
    if (this.failSet) throw new Error('slack said ratelimited');
  }
  async clearStatus(): Promise<void> {
    this.calls.push('clear');
  }
}

describe('slackAssistantStatusMiddleware', () => {
  it('sets the status before every model call and clears it when the run ends', async () => {
    const status = new RecordingStatus();
    const model = new ScriptedChatModel([toolTurn([{ name: 'ls', args: {} }]), textTurn('done')]);

    await runAgent(
      model,
      [recordingTool('ls').tool],
      [slackAssistantStatusMiddleware({ status, events: new RecordingEvents() })],
    );

    expect(status.calls).toEqual(['set:is working…', 'set:is working…', 'clear']);
  });

  it('clears the status when the run fails', async () => {
    const status = new RecordingStatus();
    const model = new ScriptedChatModel([new Error('provider down')]);

    await expect(
      runAgent(
        model,
        [],
        [slackAssistantStatusMiddleware({ status, events: new RecordingEvents() })],
      ),
    ).rejects.toThrow('provider down');

    expect(status.calls).toEqual(['set:is working…', 'clear']);
  });

  it('never fails the run over a status it could not set', async () => {
    const status = new RecordingStatus(true);
    const events = new RecordingEvents();

    const out = await runAgent(
      new ScriptedChatModel([textTurn('done')]),
      [],
      [slackAssistantStatusMiddleware({ status, events })],
    );

    expect(out.messages.at(-1)?.content).toBe('done');
    expect(events.events).toEqual([
      { type: 'assistant_status_failed', reason: 'slack said ratelimited' },
    ]);
  });
});
