import { loadConfig } from '@caravel/config';
import { analyzerConfigSchema } from './analyzer.config.js';

describe("the analyzer's configuration", () => {
  it('maps the common keys to its service slice and its own to the analysis, with the defaults', () => {
    const config = loadConfig('analyzer', analyzerConfigSchema, {
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/caravel',
      LOG_LEVEL: 'debug',
    });
    expect(config.service).toEqual({
      port: 3005,
      host: '0.0.0.0',
      natsUrl: 'nats://127.0.0.1:4222',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/caravel',
      databaseMigrate: true,
      logLevel: 'debug',
      shutdownGraceMs: 20_000,
    });
    expect(config.analysis).toMatchObject({ botLogin: 'caravel[bot]', nightlyCheckMs: 60_000 });
    expect(config.analysis.model).toBeUndefined();
  });

  it('takes ANALYZER_MODEL over the team default', () => {
    const config = loadConfig('analyzer', analyzerConfigSchema, {
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/caravel',
      ANALYZER_MODEL: 'anthropic:claude-sonnet-4-5',
      CARAVEL_MODEL: 'openai:gpt-5',
      ANTHROPIC_API_KEY: 'sk-ant',
      OPENAI_API_KEY: 'sk-oa',
    });
    expect(config.analysis.model).toBe('anthropic:claude-sonnet-4-5');
  });

  it('names the environment key of a bad value', () => {
    expect(() => loadConfig('analyzer', analyzerConfigSchema, { NATS_URL: 'x' })).toThrow(
      /NATS_URL: must be a nats:\/\/ URL/,
    );
    expect(() =>
      loadConfig('analyzer', analyzerConfigSchema, { ANALYZER_NIGHTLY_CHECK_MS: '0' }),
    ).toThrow(/ANALYZER_NIGHTLY_CHECK_MS/);
  });
});
