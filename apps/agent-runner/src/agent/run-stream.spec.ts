import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { answersForInterruptedCalls } from './run-stream.js';

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
