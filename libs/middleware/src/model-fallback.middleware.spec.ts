import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { modelFallbackMiddleware, usableFallback } from './model-fallback.middleware.js';
import { isRetryableModelError } from './model-errors.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, type ScriptedTurn } from './testing/scripted-chat-model.js';

const primary = { modelId: 'claude-x', provider: 'anthropic' };
const overloaded = () => new AppError('DEPENDENCY_UNAVAILABLE', 'provider overloaded');

function setup(fallbackTurns: ScriptedTurn[], hasCredentials = true) {
  const backup = new ScriptedChatModel(fallbackTurns, 'backup');
  const events = new RecordingEvents();
  const fallback = { modelId: 'gpt-y', provider: 'openai', model: backup, hasCredentials };
  return { backup, events, mw: modelFallbackMiddleware({ primary, fallback, events }) };
}

describe('modelFallbackMiddleware', () => {
  it('retries a retryable failure once on the fallback and reports the switch', async () => {
    const { backup, events, mw } = setup([textTurn('from backup')]);
    const main = new ScriptedChatModel([overloaded()]);

    const out = await runAgent(main, [recordingTool('ls').tool], [mw]);

    expect(out.messages.at(-1)?.content).toBe('from backup');
    expect(backup.calls).toHaveLength(1);
    expect(events.events).toEqual([
      {
        type: 'model_fallback',
        from: primary,
        to: { modelId: 'gpt-y', provider: 'openai' },
        reason: 'DEPENDENCY_UNAVAILABLE: provider overloaded',
      },
    ]);
  });

  it('does not retry an error that is not retryable', async () => {
    const { backup, events, mw } = setup([textTurn('unused')]);
    const main = new ScriptedChatModel([new AppError('FORBIDDEN', 'bad key')]);

    await expect(runAgent(main, [recordingTool('ls').tool], [mw])).rejects.toThrow('bad key');
    expect(backup.calls).toHaveLength(0);
    expect(events.events).toEqual([]);
  });

  it('never falls back to a model without credentials, or to the primary itself', async () => {
    const { backup, mw } = setup([textTurn('unused')], false);
    await expect(
      runAgent(new ScriptedChatModel([overloaded()]), [recordingTool('ls').tool], [mw]),
    ).rejects.toThrow('provider overloaded');
    expect(backup.calls).toHaveLength(0);
    const same = { ...primary, model: backup, hasCredentials: true };
    expect(usableFallback({ primary, fallback: same })).toBeUndefined();
  });

  it('when the fallback fails too, raises one coded error naming both models', async () => {
    const { mw } = setup([new AppError('TIMEOUT', 'backup slow')]);

    const run = runAgent(new ScriptedChatModel([overloaded()]), [recordingTool('ls').tool], [mw]);

    await expect(run).rejects.toThrow(/claude-x failed .*fallback gpt-y failed too/);
  });

  it('treats provider 429/5xx statuses and dropped connections as retryable', () => {
    expect(isRetryableModelError(Object.assign(new Error('rate'), { status: 429 }))).toBe(true);
    expect(isRetryableModelError(Object.assign(new Error('bad'), { status: 400 }))).toBe(false);
    expect(isRetryableModelError(new Error('wrapped', { cause: { code: 'ECONNRESET' } }))).toBe(
      true,
    );
    expect(isRetryableModelError(new Error('plain'))).toBe(false);
  });
});
