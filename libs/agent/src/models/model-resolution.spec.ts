import { AppError } from '@caravel/errors';
import { HOSTED_MODELS } from './model-catalogue.js';
import { resolveModel, type ModelResolutionInput } from './model-resolution.js';
import { parseModelSpec } from './model-spec.js';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

const team = { model: 'claude-sonnet-4-6', effort: 'medium' };

describe('resolveModel precedence', () => {
  it.each<[string, ModelResolutionInput, string, string | null, string, string | null]>([
    ['team only', { team }, 'claude-sonnet-4-6', 'medium', 'team', 'team'],
    [
      'team without effort: model default',
      { team: { model: 'gpt-5' } },
      'gpt-5',
      'medium',
      'team',
      'model-default',
    ],
    [
      'profile model beats team',
      { profile: { model: 'gpt-5.1' }, team },
      'gpt-5.1',
      'none',
      'profile',
      'model-default',
    ],
    [
      'profile model + effort',
      { profile: { model: 'o3', effort: 'high' }, team },
      'o3',
      'high',
      'profile',
      'profile',
    ],
    [
      'thread beats profile and team',
      {
        thread: { model: 'gpt-5', effort: 'minimal' },
        profile: { model: 'o3', effort: 'high' },
        team,
      },
      'gpt-5',
      'minimal',
      'thread',
      'thread',
    ],
    [
      'thread effort tunes the profile model',
      { thread: { effort: 'low' }, profile: { model: 'o3', effort: 'high' }, team },
      'o3',
      'low',
      'profile',
      'thread',
    ],
    [
      'profile effort tunes the team model',
      { profile: { effort: 'max' }, team },
      'claude-sonnet-4-6',
      'max',
      'team',
      'profile',
    ],
    [
      'team effort is not applied to a profile model',
      { profile: { model: 'gpt-5-mini' }, team: { model: 'claude-opus-4-6', effort: 'max' } },
      'gpt-5-mini',
      'medium',
      'profile',
      'model-default',
    ],
    [
      'blank values fall through',
      { thread: { model: ' ', effort: '' }, profile: { model: null }, team },
      'claude-sonnet-4-6',
      'medium',
      'team',
      'team',
    ],
    [
      'a model without effort rules resolves to none',
      { thread: { model: 'gpt-4.1' }, team },
      'gpt-4.1',
      null,
      'thread',
      null,
    ],
  ])('%s', (_name, input, model, effort, modelSource, effortSource) => {
    const resolved = resolveModel(input);
    expect(resolved).toMatchObject({ modelId: model, effort, modelSource, effortSource });
  });

  it('keeps everything after the prefix of openai-compatible, scripted and replay specs', () => {
    expect(resolveModel({ team: { model: 'openai-compatible:qwen2.5-coder:7b' } })).toMatchObject({
      provider: 'openai-compatible',
      modelId: 'qwen2.5-coder:7b',
      effort: null,
    });
    expect(parseModelSpec('scripted:demo/run.yaml')).toMatchObject({
      provider: 'scripted',
      modelId: 'demo/run.yaml',
    });
    expect(parseModelSpec('replay:runs/a.traj')).toMatchObject({
      provider: 'replay',
      modelId: 'runs/a.traj',
    });
  });
});

describe('effort validation', () => {
  it('names the model and its allowed levels for an unsupported level', () => {
    const error = thrown(() => resolveModel({ thread: { effort: 'minimal' }, team }));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe(
      'model "claude-sonnet-4-6" does not accept reasoning effort "minimal" (from the thread config); allowed: low, medium, high, max',
    );
    expect(error.details).toMatchObject({
      model: 'claude-sonnet-4-6',
      allowed: ['low', 'medium', 'high', 'max'],
    });
  });

  it('refuses any effort for a model that takes none', () => {
    const error = thrown(() =>
      resolveModel({ profile: { model: 'claude-haiku-4-5', effort: 'low' }, team }),
    );
    expect(error.message).toMatch(
      /"claude-haiku-4-5" takes no reasoning effort, but the profile config asks for "low"/,
    );
  });

  it('accepts levels case-insensitively', () => {
    expect(resolveModel({ team: { model: 'gpt-5.2', effort: 'XHIGH' } }).effort).toBe('xhigh');
  });

  it('lists the supported models for an unknown one', () => {
    const error = thrown(() => resolveModel({ thread: { model: 'gpt-3' }, team }));
    expect(error.message).toMatch(
      /^unknown model "gpt-3"; supported: claude-opus-4-6, .*openai-compatible:<model>/,
    );
  });

  it('refuses a prefix with nothing after it', () => {
    expect(() => parseModelSpec('scripted:')).toThrow(/names no model or file after "scripted:"/);
  });

  it('gives every effort-taking model a default among its own levels', () => {
    for (const entry of HOSTED_MODELS) {
      if (entry.effort !== null) expect(entry.effort.levels).toContain(entry.effort.defaultLevel);
    }
  });
});
