import { modelCredentialsOf, serviceModelConfigOf, serviceModelOf } from './model.settings.js';

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

describe('serviceModelConfigOf', () => {
  it('adds the credentials and the file root to the model the keys name', () => {
    expect(
      serviceModelConfigOf('ANALYZER_MODEL', {
        ANALYZER_MODEL: 'openai:gpt-5',
        OPENAI_API_KEY: 'sk-test',
        CARAVEL_FILE_ROOT: '/srv/models',
      }),
    ).toEqual({
      model: 'openai:gpt-5',
      modelKey: 'ANALYZER_MODEL',
      credentials: { openaiApiKey: 'sk-test' },
      fileRoot: '/srv/models',
    });
  });
});

describe('modelCredentialsOf', () => {
  it('keeps only the credentials that are set', () => {
    expect(modelCredentialsOf({ OPENAI_API_KEY: 'sk-test' })).toEqual({ openaiApiKey: 'sk-test' });
  });
});
