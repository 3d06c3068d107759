import { loadConfig } from '@caravel/config';
import { describe, expect, it } from '@jest/globals';
import { agentRunnerConfigSchema } from './agent-runner.config.js';

const BASE = {
  NATS_URL: 'nats://127.0.0.1:4222',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/caravel',
};

const load = (env: Record<string, string>) =>
  loadConfig('agent-runner', agentRunnerConfigSchema, { ...BASE, ...env });

describe('the distributed agent runner refuses a team model that cannot work, at start', () => {
  it('names the missing provider key of CARAVEL_MODEL', () => {
    expect(() => load({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5' })).toThrow(
      /CARAVEL_MODEL: .*needs ANTHROPIC_API_KEY/,
    );
    expect(() => load({ CARAVEL_MODEL: 'openai:gpt-5' })).toThrow(/needs OPENAI_API_KEY/);
  });

  it('refuses an unknown model and an unreadable script', () => {
    expect(() => load({ CARAVEL_MODEL: 'anthropic:no-such-model' })).toThrow(/CARAVEL_MODEL/);
    expect(() => load({ CARAVEL_MODEL: 'scripted:/nonexistent/model.yaml' })).toThrow(
      /CARAVEL_MODEL/,
    );
  });

  it('starts with the key set, or with no team model (each thread names its own)', () => {
    expect(
      load({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-test' }),
    ).toMatchObject({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5' });
    expect(load({}).CARAVEL_MODEL).toBeUndefined();
  });
});
