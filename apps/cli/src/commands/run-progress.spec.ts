import { addStep, progressLine } from './run.command.js';

describe('caravel run progress', () => {
  it('sums tool calls, tokens and cost over the steps and shows the time', () => {
    const zero = { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    const totals = [
      { toolCalls: [{}], usage: { inputTokens: 1200, outputTokens: 40, costUsd: 0.01 } },
      { toolCalls: [{}, {}], usage: { inputTokens: 1800, outputTokens: 60 } },
      { thought: 'a person ran a command' },
    ].reduce(addStep, zero);
    expect(totals).toEqual({ toolCalls: 3, inputTokens: 3000, outputTokens: 100, costUsd: 0.01 });
    expect(progressLine(totals, 4210)).toBe(
      'tool calls 3 · tokens 3,000 in / 100 out · $0.0100 · 4.2 s',
    );
  });
});
