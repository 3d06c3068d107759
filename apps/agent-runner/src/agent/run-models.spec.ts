import { modelFallbackMiddleware, type MiddlewareEvent } from '@caravel/middleware';
import { startFakeOpenAi } from '@caravel/testing';
import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import { AgentKitLoader } from './agent-kit.loader.js';
import { RunModels } from './run-models.js';

const models = (env: Record<string, string>) =>
  new RunModels(
    agentRunnerConfigFrom({ CARAVEL_MODEL: 'openai:gpt-5', OPENAI_API_KEY: 'k', ...env }),
    new AgentKitLoader(),
  );

describe("a coding run's fallback model", () => {
  it('is none unless the team or the thread names one', async () => {
    expect(await models({}).fallbackFor({})).toBeUndefined();
  });

  it("is the team's CARAVEL_FALLBACK_MODEL, built with its provider's key", async () => {
    const fallback = await models({
      CARAVEL_FALLBACK_MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-test',
    }).fallbackFor({});
    expect(fallback).toMatchObject({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      hasCredentials: true,
    });
    expect(fallback?.model).toBeDefined();
  });

  it("is the thread's own when it names one, over the team's", async () => {
    const fallback = await models({ CARAVEL_FALLBACK_MODEL: 'openai:gpt-5-mini' }).fallbackFor({
      fallbackModel: 'openai:gpt-5',
    });
    expect(fallback).toMatchObject({ provider: 'openai', modelId: 'gpt-5' });
  });

  it("is the requester's profile's between the thread's and the team's", async () => {
    const runModels = models({ CARAVEL_FALLBACK_MODEL: 'openai:gpt-5-mini' });
    const profile = { fallbackModel: 'openai:gpt-4.1' };
    expect(await runModels.fallbackFor({}, undefined, profile)).toMatchObject({
      modelId: 'gpt-4.1',
    });
    expect(
      await runModels.fallbackFor({ fallbackModel: 'openai:gpt-5' }, undefined, profile),
    ).toMatchObject({ modelId: 'gpt-5' });
    expect(await runModels.fallbackFor({}, undefined, { fallbackModel: null })).toMatchObject({
      modelId: 'gpt-5-mini',
    });
  });

  it('is skipped when its provider has no key here, rather than failing the run', async () => {
    expect(
      await models({}).fallbackFor({ fallbackModel: 'anthropic:claude-sonnet-4-5' }),
    ).toBeUndefined();
  });
});

describe("the model of a run's subagents", () => {
  const run = models({}).resolve({});

  it("is the person's profile's, else the team's saved one, else CARAVEL_SUBAGENT_MODEL, else the run's", () => {
    const env = models({ CARAVEL_SUBAGENT_MODEL: 'openai:gpt-5-mini' });
    const team = { subagentModel: 'openai:gpt-4.1' };
    const profile = { subagentModel: 'openai:gpt-5-nano' };
    expect(env.subagentFor(run, team, profile)).toMatchObject({ modelId: 'gpt-5-nano' });
    expect(env.subagentFor(run, team, { subagentModel: null })).toMatchObject({
      modelId: 'gpt-4.1',
    });
    expect(env.subagentFor(run, { subagentModel: null }, null)).toMatchObject({
      modelId: 'gpt-5-mini',
    });
    expect(models({}).subagentFor(run, null, null)).toBe(run);
  });
});

describe('a provider outage with a fallback configured', () => {
  it('answers from the fallback after the primary fails with 529, and says it switched', async () => {
    const fake = await startFakeOpenAi();
    try {
      const runModels = new RunModels(
        agentRunnerConfigFrom({
          CARAVEL_MODEL: 'openai-compatible:primary-model',
          CARAVEL_FALLBACK_MODEL: 'openai-compatible:backup-model',
          OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
        }),
        new AgentKitLoader(),
      );
      const primary = runModels.resolve({});
      const fallback = await runModels.fallbackFor({});
      const events: MiddlewareEvent[] = [];
      const agent = createAgent({
        model: await runModels.forAgent(primary),
        tools: [],
        middleware: [
          modelFallbackMiddleware({
            primary: { provider: primary.provider, modelId: primary.modelId },
            ...(fallback ? { fallback } : {}),
            events: { emit: (event) => void events.push(event) },
          }),
        ],
      });
      fake.enqueue(
        { error: { status: 529, message: 'Overloaded', type: 'overloaded_error' } },
        { text: 'answered by the fallback' },
      );

      const result = await agent.invoke({ messages: [new HumanMessage('fix it')] });

      expect(result.messages.at(-1)?.text).toBe('answered by the fallback');
      expect(fake.requests.map((r) => r.body?.['model'])).toEqual([
        'primary-model',
        'backup-model',
      ]);
      expect(events).toContainEqual(expect.objectContaining({ type: 'model_fallback' }));
    } finally {
      await fake.close();
    }
  });
});
