import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { answersForInterruptedCalls } from './run-messages.js';
import { REMOVE_ALL_ID, writesOf } from './run-stream.js';

const ai = (ids: string[]) =>
  new AIMessage({
    content: '',
    tool_calls: ids.map((id) => ({
      id,
      name: 'execute',
      args: { command: id },
      type: 'tool_call',
    })),
  });
const result = (id: string) => new ToolMessage({ tool_call_id: id, content: 'done' });

describe('answersForInterruptedCalls', () => {
  it('answers the calls of the last model turn that got no result, and only those', () => {
    const history = [new HumanMessage('go'), ai(['a', 'b', 'c']), result('a')];
    const answers = answersForInterruptedCalls(history);
    expect(answers.map((m) => m.tool_call_id)).toEqual(['b', 'c']);
    expect(answers.every((m) => m.status === 'error')).toBe(true);
    expect(answers[0]?.content).toMatch(/interrupted/);
  });

  it('answers nothing when every call has its result, or the last turn made none', () => {
    expect(answersForInterruptedCalls([ai(['a']), result('a')])).toEqual([]);
    expect(answersForInterruptedCalls([ai(['a']), result('a'), new AIMessage('bye')])).toEqual([]);
    expect(answersForInterruptedCalls([])).toEqual([]);
  });
});

describe('writesOf', () => {
  it('reads every write of a node that wrote a channel twice, which LangGraph streams as a list', () => {
    const raw = ai(['a']);
    const repaired = ai(['a']);
    const writes = writesOf({
      model_request: [{ messages: [raw] }, { messages: [repaired], exitStatus: 'exit_no_reply' }],
      tools: { messages: [result('a')] },
      other: undefined,
    });

    expect(writes.flatMap((w) => w.messages ?? [])).toEqual([raw, repaired, result('a')]);
    expect(writes.map((w) => w.exitStatus)).toEqual([undefined, 'exit_no_reply', undefined]);
  });

  it("reads a write that rewrites the list whole as the list, in its order, superseding the node's earlier messages", () => {
    const earlier = new HumanMessage({ id: 'h-0', content: 'go' });
    const answer = ai(['a']);
    const followUp = new HumanMessage({ id: 'queued:m-1', content: 'also the docs' });
    const writes = writesOf({
      model_request: [
        { messages: [answer] },
        {
          messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), earlier, followUp, answer],
          exitStatus: 'exit_no_reply',
        },
      ],
    });

    expect(writes.flatMap((w) => w.messages ?? [])).toEqual([earlier, followUp, answer]);
    expect(writes.map((w) => w.exitStatus)).toEqual([undefined, 'exit_no_reply']);
    expect(REMOVE_ALL_ID).toBe(REMOVE_ALL_MESSAGES);
  });
});
