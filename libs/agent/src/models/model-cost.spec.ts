import { AIMessage } from '@langchain/core/messages';
import { findHostedModel, PATTERN_MODELS } from './model-catalogue.js';
import { addUsage, costOf, usageFromMessage } from './model-cost.js';

describe('cost accounting', () => {
  it('prices input and output tokens per million from the table', () => {
    const sonnet = findHostedModel('claude-sonnet-4-6')!;
    expect(costOf(sonnet, { inputTokens: 1_000_000, outputTokens: 100_000 })).toEqual({
      inputUsd: 3,
      outputUsd: 1.5,
      totalUsd: 4.5,
    });
  });

  it('keeps small calls exact to the micro-dollar', () => {
    const gpt5 = findHostedModel('gpt-5')!;
    expect(costOf(gpt5, { inputTokens: 1234, outputTokens: 567 })).toEqual({
      inputUsd: 0.001543,
      outputUsd: 0.00567,
      totalUsd: 0.007213,
    });
  });

  it('charges nothing for self-hosted, scripted and replayed models', () => {
    for (const entry of PATTERN_MODELS) {
      expect(costOf(entry, { inputTokens: 5000, outputTokens: 5000 }).totalUsd).toBe(0);
    }
  });

  it('refuses negative or non-finite counts', () => {
    const gpt5 = findHostedModel('gpt-5')!;
    expect(() => costOf(gpt5, { inputTokens: -1, outputTokens: 0 })).toThrow(/inputTokens must be/);
    expect(() => costOf(gpt5, { inputTokens: 0, outputTokens: Number.NaN })).toThrow(
      /outputTokens must be/,
    );
  });

  it('reads usage from a LangChain message and adds usages', () => {
    const message = new AIMessage({
      content: 'x',
      usage_metadata: { input_tokens: 10, output_tokens: 4, total_tokens: 14 },
    });
    const usage = usageFromMessage(message)!;
    expect(addUsage(usage, usage)).toEqual({ inputTokens: 20, outputTokens: 8 });
    expect(usageFromMessage(new AIMessage('no usage'))).toBeNull();
  });
});
