import { createLogger } from './create-logger.js';
import { runWithLogFields, threadIdOfSubject } from './log-context.js';

/** A destination that keeps each written line, parsed. */
function capture(): { lines: Record<string, unknown>[]; write(text: string): void } {
  const lines: Record<string, unknown>[] = [];
  return { lines, write: (text) => void lines.push(JSON.parse(text) as Record<string, unknown>) };
}

describe('createLogger (JSON lines)', () => {
  it('writes one JSON object per line with the service, level and message', () => {
    const out = capture();
    createLogger({ service: 'dispatch', destination: out }).info('started');
    expect(out.lines).toEqual([
      expect.objectContaining({ service: 'dispatch', level: 30, msg: 'started' }),
    ]);
    expect(typeof out.lines[0]!['time']).toBe('number');
  });

  it('adds the fields bound to the running work, and only inside it', async () => {
    const out = capture();
    const logger = createLogger({ service: 'agent-runner', destination: out });
    await runWithLogFields({ correlationId: 'corr-1', threadId: 't-1' }, async () => {
      await Promise.resolve();
      runWithLogFields({ subject: 'thread.t-1.cmd.run.start.v1.p01', runId: undefined }, () =>
        logger.info('inner'),
      );
      logger.info('outer');
    });
    logger.info('outside');
    expect(
      out.lines.map(({ msg, correlationId, threadId, subject }) => ({
        msg,
        correlationId,
        threadId,
        subject,
      })),
    ).toEqual([
      {
        msg: 'inner',
        correlationId: 'corr-1',
        threadId: 't-1',
        subject: 'thread.t-1.cmd.run.start.v1.p01',
      },
      { msg: 'outer', correlationId: 'corr-1', threadId: 't-1', subject: undefined },
      { msg: 'outside', correlationId: undefined, threadId: undefined, subject: undefined },
    ]);
    expect('runId' in out.lines[0]!).toBe(false);
  });

  it('redacts credentials by key, nested or in headers', () => {
    const out = capture();
    createLogger({ service: 'ingress', destination: out }).warn(
      {
        token: 'ghs_canary',
        request: { headers: { authorization: 'Bearer canary' } },
        password: 'pw-canary',
      },
      'refused',
    );
    const text = JSON.stringify(out.lines);
    expect(text).not.toContain('canary');
    expect(out.lines[0]).toMatchObject({ token: '[redacted]', password: '[redacted]' });
  });

  it('drops lines below LOG_LEVEL', () => {
    const out = capture();
    const logger = createLogger({ service: 'x', level: 'warn', destination: out });
    logger.info('hidden');
    logger.warn('shown');
    expect(out.lines.map((l) => l['msg'])).toEqual(['shown']);
    const verbose = createLogger({ service: 'x', level: 'verbose', destination: out });
    verbose.trace('very');
    expect(out.lines.map((l) => l['msg'])).toEqual(['shown', 'very']);
  });
});

describe('threadIdOfSubject', () => {
  it('reads the thread id of a thread or sandbox subject, with or without a namespace prefix', () => {
    expect(threadIdOfSubject('thread.5f2b.cmd.run.start.v1.p07')).toBe('5f2b');
    expect(threadIdOfSubject('ci42.thread.5f2b.evt.run.finished.v1.p07')).toBe('5f2b');
    expect(threadIdOfSubject('sandbox.5f2b.exec')).toBe('5f2b');
    expect(threadIdOfSubject('caravel.system.wakeup.v1')).toBeUndefined();
  });
});
