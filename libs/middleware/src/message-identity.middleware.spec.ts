import { describe, it, expect } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import {
  messageIdentityMiddleware,
  turnCallId,
  turnMessageId,
} from './message-identity.middleware.js';
import { recordingTool } from './testing/agent-harness.js';
import { ScriptedChatModel, textTurn } from './testing/scripted-chat-model.js';

/** An answer as a provider that numbers its ids from 1 gives it, every time it starts. */
function providerAnswer(command: string): AIMessage {
  return new AIMessage({
    id: 'chatcmpl-1',
    content: '',
    tool_calls: [{ id: 'call_1', name: 'execute', args: { command }, type: 'tool_call' }],
  });
}

/** One thread, checkpointed like the runner's, whose runs each send their own prompt. */
function thread(model: ScriptedChatModel) {
  const execute = recordingTool('execute');
  const checkpointer = new MemorySaver();
  const run = async (runId: string) => {
    const promptMessageId = `prompt-${runId}`;
    const agent = createAgent({
      model,
      tools: [execute.tool],
      middleware: [messageIdentityMiddleware({ runId, promptMessageId })],
      checkpointer,
    });
    const prompt = new HumanMessage({ id: promptMessageId, content: `task of ${runId}` });
    const config = { configurable: { thread_id: 'thread-1' } };
    const out = (await agent.invoke({ messages: [prompt] }, config)) as { messages: BaseMessage[] };
    return out.messages;
  };
  return { run, executed: execute.received };
}

describe('messageIdentityMiddleware', () => {
  it("names the model's answer and its calls by their turn of the run, and sends the provider its own ids back", async () => {
    const model = new ScriptedChatModel([providerAnswer('ls'), textTurn('done')]);
    const { run } = thread(model);

    const messages = await run('run-a');

    const [answer] = messages.filter((m): m is AIMessage => AIMessage.isInstance(m));
    expect(answer?.id).toBe(turnMessageId('run-a', 0));
    expect(answer?.tool_calls?.map((call) => call.id)).toEqual([turnCallId('run-a', 0, 0)]);
    const result = messages.find((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(result?.tool_call_id).toBe(turnCallId('run-a', 0, 0));
    // The second request holds the first answer and its result as the provider produced them.
    const sentBack = model.calls[1] ?? [];
    const earlier = sentBack.find((m): m is AIMessage => AIMessage.isInstance(m));
    expect(earlier?.id).toBe('chatcmpl-1');
    expect(earlier?.tool_calls?.map((call) => call.id)).toEqual(['call_1']);
    expect(sentBack.find((m) => ToolMessage.isInstance(m))).toMatchObject({
      tool_call_id: 'call_1',
    });
  });

  it('runs the calls of a later run whose provider repeats the ids of an earlier one', async () => {
    const model = new ScriptedChatModel([
      providerAnswer('echo a'),
      textTurn('a done'),
      providerAnswer('echo b'),
      textTurn('b done'),
    ]);
    const { run, executed } = thread(model);

    await run('run-a');
    const messages = await run('run-b');

    expect(executed).toEqual([{ command: 'echo a' }, { command: 'echo b' }]);
    const answers = messages.filter((m) => AIMessage.isInstance(m)).map((m) => m.id);
    expect(answers).toEqual([
      turnMessageId('run-a', 0),
      turnMessageId('run-a', 1),
      turnMessageId('run-b', 0),
      turnMessageId('run-b', 1),
    ]);
  });

  it('keeps the ids short enough and plain enough for every provider', () => {
    const runId = '3f0c8a52-5b1e-5d7a-9c2e-0f6b1d2e3a4b';

    expect(turnCallId(runId, 999, 99)).toMatch(/^[A-Za-z0-9_]{1,40}$/);
    expect(`${turnMessageId(runId, 999)}-nudge`).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(turnCallId(runId, 1, 0)).not.toBe(turnCallId('another-run', 1, 0));
  });

  it("counts the run's answers a context summary replaced, so a summarised run never reuses a turn's id", async () => {
    const model = new ScriptedChatModel([textTurn('done')]);
    const agent = createAgent({
      model,
      tools: [],
      middleware: [messageIdentityMiddleware({ runId: 'run-s', promptMessageId: 'prompt-s' })],
    });
    const summary = new HumanMessage({
      id: 'summary-1',
      content: '<conversation_summary>three turns</conversation_summary>',
      additional_kwargs: { caravel_summary: { messages: 6, turnsAfterPrompt: 3 } },
    });
    const prompt = new HumanMessage({ id: 'prompt-s', content: 'the task' });
    const out = (await agent.invoke({ messages: [prompt, summary] })) as {
      messages: BaseMessage[];
    };
    expect(out.messages.at(-1)?.id).toBe(turnMessageId('run-s', 3));
  });
});
