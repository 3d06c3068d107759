import { describe, expect, it, jest } from '@jest/globals';
import { AppError } from '@caravel/errors';
import type { ParsedOutput } from './action-validator.js';
import { DEFAULT_BLOCKLIST } from './blocklist.js';
import { queryWithRequery, type RequeryLoopDeps } from './requery-loop.js';

interface Msg {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A reply is the raw text; `BAD:` marks an unparsable answer, anything else is one action. */
function parse(reply: string): ParsedOutput {
  if (reply.startsWith('BAD:'))
    return { ok: false, errorMessage: reply.slice(4), errorCode: 'missing' };
  return { ok: true, thought: `thinking about ${reply}`, action: reply };
}

function deps(replies: string[], overrides: Partial<RequeryLoopDeps<Msg, string>> = {}) {
  const queue = [...replies];
  const query = jest.fn((_messages: readonly Msg[]) => {
    const next = queue.shift();
    if (next === undefined) throw new Error('model queried more often than scripted');
    return Promise.resolve(next);
  });
  const loopDeps: RequeryLoopDeps<Msg, string> = {
    query,
    parse,
    failedTurn: (reply, errorMessage) => [
      { role: 'assistant', content: reply },
      { role: 'user', content: errorMessage },
    ],
    validator: { blocklist: DEFAULT_BLOCKLIST, multilineCommands: [] },
    ...overrides,
  };
  return { loopDeps, query };
}

const HISTORY: Msg[] = [
  { role: 'system', content: 'system' },
  { role: 'user', content: 'fix the bug' },
];

describe('queryWithRequery', () => {
  it('accepts a valid first answer without requerying', async () => {
    const { loopDeps, query } = deps(['ls']);
    const outcome = await queryWithRequery(HISTORY, loopDeps);
    expect(outcome).toMatchObject({ kind: 'accepted', action: 'ls', failedAttempts: [] });
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('recovers after a format error, keeping the failure out of the history but on record', async () => {
    const { loopDeps, query } = deps(['BAD:no tool call', 'ls']);
    const history = structuredClone(HISTORY);
    const outcome = await queryWithRequery(history, loopDeps);
    expect(outcome.kind).toBe('accepted');
    expect(history).toEqual(HISTORY);
    expect(outcome.failedAttempts).toHaveLength(1);
    expect(outcome.failedAttempts[0]).toMatchObject({
      reply: 'BAD:no tool call',
      failure: { kind: 'format', message: 'no tool call' },
      query: HISTORY,
    });
    const requery = query.mock.calls[1]?.[0];
    expect(requery).toHaveLength(HISTORY.length + 2);
    expect(requery?.[2]).toEqual({ role: 'assistant', content: 'BAD:no tool call' });
    expect(requery?.[3]?.content).toContain('no tool call');
  });

  it('shows only the latest failure on each requery', async () => {
    const { loopDeps, query } = deps(['BAD:first', 'vim x', 'ls']);
    await queryWithRequery(HISTORY, loopDeps);
    const third = query.mock.calls[2]?.[0] ?? [];
    expect(third).toHaveLength(HISTORY.length + 2);
    expect(third.map((m) => m.content).join('\n')).not.toContain('first');
    expect(third[2]).toEqual({ role: 'assistant', content: 'vim x' });
  });

  it('ends the step with exit_format on the 3rd failure and asks no more', async () => {
    const { loopDeps, query } = deps(['BAD:a', 'BAD:b', 'BAD:c', 'ls']);
    const outcome = await queryWithRequery(HISTORY, loopDeps);
    expect(outcome.kind).toBe('exit_format');
    expect(outcome.failedAttempts.map((a) => a.reply)).toEqual(['BAD:a', 'BAD:b', 'BAD:c']);
    expect(query).toHaveBeenCalledTimes(3);
  });

  it.each([['vim'], ['python'], ['su'], ['nano']])(
    'ends with exit_format when the model keeps sending the blocked %s',
    async (command) => {
      const { loopDeps } = deps([command, command, command]);
      const outcome = await queryWithRequery(HISTORY, loopDeps);
      expect(outcome.kind).toBe('exit_format');
      expect(outcome.failedAttempts.every((a) => a.failure.kind === 'blocked')).toBe(true);
    },
  );

  it('requeries syntax errors found by the injected checker', async () => {
    const check = jest.fn((command: string) =>
      Promise.resolve(
        command === 'for'
          ? { ok: false as const, stdout: '', stderr: 'syntax error' }
          : { ok: true as const },
      ),
    );
    const { loopDeps } = deps(['for', 'ls'], {
      validator: { blocklist: DEFAULT_BLOCKLIST, multilineCommands: [], syntaxChecker: { check } },
    });
    const outcome = await queryWithRequery(HISTORY, loopDeps);
    expect(outcome).toMatchObject({ kind: 'accepted', action: 'ls' });
    expect(outcome.failedAttempts[0]?.failure).toEqual({
      kind: 'syntax',
      action: 'for',
      stdout: '',
      stderr: 'syntax error',
    });
  });

  it('resamples with the unchanged history after a content-policy refusal', async () => {
    const { loopDeps, query } = deps(['refused', 'ls'], {
      parse: (reply) =>
        reply === 'refused'
          ? { ok: false, errorMessage: 'policy', errorCode: 'content_policy' }
          : parse(reply),
    });
    const outcome = await queryWithRequery(HISTORY, loopDeps);
    expect(outcome.failedAttempts[0]?.requeryMessage).toBeNull();
    expect(query.mock.calls[1]?.[0]).toEqual(HISTORY);
  });

  it('honours a configured requery limit', async () => {
    const { loopDeps, query } = deps(['BAD:a', 'ls'], { maxRequeries: 1 });
    expect((await queryWithRequery(HISTORY, loopDeps)).kind).toBe('exit_format');
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('rejects a limit that is not a positive integer', async () => {
    const { loopDeps } = deps([], { maxRequeries: 0 });
    await expect(queryWithRequery(HISTORY, loopDeps)).rejects.toBeInstanceOf(AppError);
  });
});
