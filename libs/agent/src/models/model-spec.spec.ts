import { HOSTED_MODELS } from './model-catalogue.js';
import { parseModelSpec } from './model-spec.js';

describe('model specs', () => {
  it('takes a hosted model behind its provider as the same row as the bare name', () => {
    for (const entry of HOSTED_MODELS) {
      const prefixed = parseModelSpec(`${entry.provider}:${entry.modelId}`);
      expect(prefixed).toMatchObject({
        spec: `${entry.provider}:${entry.modelId}`,
        provider: entry.provider,
        modelId: entry.modelId,
        entry,
      });
      expect(parseModelSpec(entry.modelId).entry).toBe(prefixed.entry);
    }
  });

  it('reads the README example anthropic:claude-sonnet-4-5', () => {
    expect(parseModelSpec(' anthropic:claude-sonnet-4-5 ')).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      spec: 'anthropic:claude-sonnet-4-5',
    });
  });

  it('refuses a hosted model behind the wrong provider, naming the right one', () => {
    expect(() => parseModelSpec('openai:claude-sonnet-4-5')).toThrow(
      'model "openai:claude-sonnet-4-5": claude-sonnet-4-5 is an anthropic model, not openai (write anthropic:claude-sonnet-4-5)',
    );
  });

  it('refuses an unknown model behind a hosted provider with the supported list', () => {
    expect(() => parseModelSpec('anthropic:claude-2')).toThrow(
      /^unknown model "anthropic:claude-2"; supported: claude-opus-4-6, .*claude-sonnet-4-5.*written with its provider/,
    );
    expect(() => parseModelSpec('anthropic:')).toThrow(/^unknown model "anthropic:"/);
  });
});
