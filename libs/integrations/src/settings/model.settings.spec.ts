import { modelCredentialsOf, serviceModelOf } from './model.settings.js';

describe('serviceModelOf', () => {
  it("takes the service's own key first and says so", () => {
    expect(
      serviceModelOf('REVIEWER_MODEL', {
        REVIEWER_MODEL: 'openai:gpt-5',
        CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5',
      }),
    ).toEqual({ model: 'openai:gpt-5', modelKey: 'REVIEWER_MODEL' });
  });

  it('falls back to the team default when the own key is unset', () => {
    expect(serviceModelOf('ANALYZER_MODEL', { CARAVEL_MODEL: 'scripted:a.yaml' })).toEqual({
      model: 'scripted:a.yaml',
      modelKey: 'CARAVEL_MODEL',
    });
  });

  it('names no model when neither key is set', () => {
    expect(serviceModelOf('ANALYZER_MODEL', {})).toEqual({});
  });
});

describe('modelCredentialsOf', () => {
  it('keeps only the credentials that are set', () => {
    expect(modelCredentialsOf({ OPENAI_API_KEY: 'sk-test' })).toEqual({ openaiApiKey: 'sk-test' });
  });
});
