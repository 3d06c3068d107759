import { describe, it, expect } from '@jest/globals';
import { AIMessage } from '@langchain/core/messages';
import {
  isMalformedThinkingBlock,
  stripEmptyThinkingMiddleware,
} from './strip-empty-thinking.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn } from './testing/scripted-chat-model.js';

describe('stripEmptyThinkingMiddleware', () => {
  it('removes empty thinking blocks from AI messages sent back to the provider, keeping the rest', async () => {
    const events = new RecordingEvents();
    const withThinking = new AIMessage({
      content: [
        { type: 'thinking', thinking: '', signature: 'sig' },
        { type: 'thinking', thinking: 'real reasoning', signature: 'sig' },
        { type: 'text', text: 'partial answer' },
      ],
      tool_calls: [{ name: 'ls', args: {}, id: 'c1', type: 'tool_call' }],
    });
    const model = new ScriptedChatModel([withThinking, textTurn('done')]);

    const out = await runAgent(
      model,
      [recordingTool('ls').tool],
      [stripEmptyThinkingMiddleware({ events })],
    );

    const sentBack = model.calls[1]!.find((m) => AIMessage.isInstance(m))!;
    expect(sentBack.content).toEqual([
      { type: 'thinking', thinking: 'real reasoning', signature: 'sig' },
      { type: 'text', text: 'partial answer' },
    ]);
    expect((sentBack as AIMessage).tool_calls?.map((c) => c.id)).toEqual(['c1']);
    expect(events.events).toEqual([{ type: 'thinking_blocks_stripped', removed: 1 }]);
    const stored = out.messages.find((m) => AIMessage.isInstance(m))!;
    expect(Array.isArray(stored.content) && stored.content.length).toBe(3);
  });

  it('leaves requests without malformed blocks untouched and silent', async () => {
    const events = new RecordingEvents();
    const model = new ScriptedChatModel([textTurn('done')]);

    await runAgent(model, [recordingTool('ls').tool], [stripEmptyThinkingMiddleware({ events })]);

    expect(events.events).toEqual([]);
  });

  it('knows which blocks are malformed', () => {
    expect(isMalformedThinkingBlock({ type: 'thinking', thinking: '  ', signature: 's' })).toBe(
      true,
    );
    expect(isMalformedThinkingBlock({ type: 'thinking', thinking: 'x' })).toBe(true);
    expect(isMalformedThinkingBlock({ type: 'redacted_thinking', data: '' })).toBe(true);
    expect(isMalformedThinkingBlock({ type: 'reasoning', reasoning: '' })).toBe(true);
    expect(isMalformedThinkingBlock({ type: 'reasoning', reasoning: 'why' })).toBe(false);
    expect(isMalformedThinkingBlock({ type: 'text', text: '' })).toBe(false);
  });
});
