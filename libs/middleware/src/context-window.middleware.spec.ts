import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from 'langchain';
import { z } from 'zod';
import {
  contextWindowMiddleware,
  summarizedTurns,
  tailStart,
  withLastObservations,
  type ConversationSummarizer,
} from './context-window.middleware.js';
import { contextLimit, exitOf } from './testing/loop-exits.js';
import { runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

/** A tool printing 2,000 characters (500 tokens by the estimate) of build log per call. */
const noisyBuild = tool(async () => `${'compiling module\n'.repeat(117)}ok`, {
  name: 'build',
  description: 'build (test)',
  schema: z.object({}),
});

const WINDOW = 2_000;
const buildTurns = (n: number) =>
  Array.from({ length: n }, () => toolTurn([{ name: 'build', args: {} }]));

/** A message's text (content blocks as JSON). */
function textOf(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
}

class RecordingSummarizer implements ConversationSummarizer {
  readonly seen: number[] = [];
  summarize(messages: readonly BaseMessage[]): Promise<string> {
    this.seen.push(messages.length);
    return Promise.resolve(`ran the build ${messages.length} times; it compiles`);
  }
}

describe('contextWindowMiddleware', () => {
  it('a run that overflows its window without it ends exit_context', async () => {
    const model = new ScriptedChatModel([...buildTurns(8), textTurn('done')]);
    const reason = await exitOf(
      runAgent(model, [noisyBuild], [contextLimit(WINDOW, new RecordingEvents())]),
    );
    expect(reason).toBe('exit_context');
  });

  it('summarises the older turns near the window and the same run completes', async () => {
    const events = new RecordingEvents();
    const summarizer = new RecordingSummarizer();
    const model = new ScriptedChatModel([...buildTurns(8), textTurn('done')]);
    const window = contextWindowMiddleware({
      contextWindow: WINDOW,
      keepMessages: 4,
      promptMessageId: 'prompt-1',
      summarizer,
      events,
    });

    const out = await runAgent(model, [noisyBuild], [window, contextLimit(WINDOW, events)]);

    expect(out.messages.at(-1)?.content).toBe('done');
    const summaries = events.events.filter((e) => e.type === 'context_summarized');
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      expect(summary).toMatchObject({ summary: expect.stringContaining('it compiles') });
    }
    // Every request the model got fitted the window; the task stayed first, verbatim.
    for (const sent of model.calls) {
      const chars = sent.reduce((n, m) => n + JSON.stringify(m.content).length, 0);
      expect(chars / 4).toBeLessThan(WINDOW);
      expect(sent.find((m) => m.type === 'human')?.content).toBe('do the task');
    }
    const last = model.calls.at(-1) ?? [];
    expect(last.some((m) => textOf(m).includes('<conversation_summary'))).toBe(true);
  });

  it('leaves the conversation as it was when the summary fails', async () => {
    const events = new RecordingEvents();
    const model = new ScriptedChatModel([...buildTurns(8), textTurn('done')]);
    const window = contextWindowMiddleware({
      contextWindow: WINDOW,
      keepMessages: 4,
      promptMessageId: 'prompt-1',
      summarizer: { summarize: () => Promise.reject(new Error('provider down')) },
      events,
    });
    const reason = await exitOf(
      runAgent(model, [noisyBuild], [window, contextLimit(WINDOW, events)]),
    );
    expect(reason).toBe('exit_context');
    expect(events.events).toContainEqual({
      type: 'context_summary_failed',
      reason: 'provider down',
    });
  });

  it("keeps only the newest N outputs in full for the model (SWE-agent's last_n_observations)", async () => {
    const model = new ScriptedChatModel([...buildTurns(4), textTurn('done')]);
    const window = contextWindowMiddleware({
      contextWindow: 0,
      keepObservations: 2,
      promptMessageId: 'prompt-1',
      events: new RecordingEvents(),
    });
    const out = await runAgent(model, [noisyBuild], [window]);
    const sent = (model.calls.at(-1) ?? []).filter((m) => m.type === 'tool');
    expect(sent.map((m) => textOf(m).slice(0, 43))).toEqual([
      'Old environment output: (118 lines omitted)',
      'Old environment output: (118 lines omitted)',
      'compiling module\ncompiling module\ncompiling',
      'compiling module\ncompiling module\ncompiling',
    ]);
    // The conversation itself keeps every output.
    expect(
      out.messages.filter((m) => m.type === 'tool').every((m) => textOf(m).endsWith('ok')),
    ).toBe(true);
  });
});

describe('the pieces', () => {
  const call = (id: string) =>
    new AIMessage({ content: '', tool_calls: [{ id, name: 'x', args: {} }] });
  const output = (id: string) => new ToolMessage({ tool_call_id: id, content: 'out' });

  it('never starts the kept tail on an output cut from its call', () => {
    const messages = [new HumanMessage('task'), call('a'), output('a'), call('b'), output('b')];
    expect(tailStart(messages, 1)).toBe(3);
    expect(tailStart(messages, 2)).toBe(3);
    expect(tailStart(messages, 10)).toBe(0);
  });

  it('elides older outputs only, keeping ids and call ids', () => {
    const messages = [call('a'), output('a'), call('b'), output('b')];
    const seen = withLastObservations(messages, 1);
    expect(seen[1]).toMatchObject({
      tool_call_id: 'a',
      content: 'Old environment output: (1 lines omitted)',
    });
    expect(seen[3]).toBe(messages[3]);
  });

  it('reads the turns a summary stands for (0 for any other message)', () => {
    expect(summarizedTurns(new HumanMessage('hello'))).toBe(0);
    const summary = new HumanMessage({
      content: 'summary',
      additional_kwargs: { caravel_summary: { messages: 6, turnsAfterPrompt: 3 } },
    });
    expect(summarizedTurns(summary)).toBe(3);
  });
});
