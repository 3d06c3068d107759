import { describe, it, expect } from '@jest/globals';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { answersThisRun } from './run-turns.js';

const answer = () => new AIMessage('ok');
const prompt = (id: string) => new HumanMessage({ id, content: 'go' });

describe('answersThisRun', () => {
  it("counts the model's answers after the run's prompt, not an earlier run's", () => {
    const messages = [
      prompt('run-1'),
      answer(),
      answer(),
      prompt('run-2'),
      answer(),
      new ToolMessage({ tool_call_id: 'c', content: 'done' }),
      new HumanMessage('a follow-up'),
      answer(),
    ];

    expect(answersThisRun(messages, 'run-2')).toBe(2);
    expect(answersThisRun(messages, 'run-1')).toBe(4);
  });

  it('counts the turns a summary stands for, and every answer when the prompt is not there', () => {
    const summary = new HumanMessage({
      content: 'summary',
      additional_kwargs: { caravel_summary: { messages: 9, turnsAfterPrompt: 3 } },
    });

    expect(answersThisRun([prompt('p'), summary, answer()], 'p')).toBe(4);
    expect(answersThisRun([answer(), answer()], 'p')).toBe(2);
  });
});
