import { Logger } from '@nestjs/common';
import { CaravelLogger } from './caravel-logger.js';
import { createLogger } from './create-logger.js';

function logged(): { logger: CaravelLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const pino = createLogger({
    service: 'dispatch',
    level: 'verbose',
    destination: {
      write: (text: string) => lines.push(JSON.parse(text) as Record<string, unknown>),
    },
  });
  return { logger: new CaravelLogger(pino), lines };
}

describe('CaravelLogger (Nest)', () => {
  afterEach(() => {
    Logger.overrideLogger(true);
  });

  it("turns a `new Logger('X')` line into a structured line with context X", () => {
    const { logger, lines } = logged();
    Logger.overrideLogger(logger);
    new Logger('Reconciler').log('swept 3 threads');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        context: 'Reconciler',
        msg: 'swept 3 threads',
        service: 'dispatch',
      }),
    ]);
  });

  it("keeps an error's stack, from an Error or from Nest's (message, stack, context)", () => {
    const { logger, lines } = logged();
    logger.error(new Error('boom'), 'Bus');
    logger.error('handler failed', 'Error: bad\n    at handler (x.ts:1:1)', 'Transport');
    expect(lines[0]).toMatchObject({ level: 50, context: 'Bus', msg: 'boom' });
    expect(String((lines[0]!['err'] as { stack: string }).stack)).toContain('Error: boom');
    expect(lines[1]).toMatchObject({
      context: 'Transport',
      msg: 'handler failed',
      err: { stack: 'Error: bad\n    at handler (x.ts:1:1)' },
    });
  });

  it("follows Nest's level list: verbose and debug off unless enabled", () => {
    const { logger, lines } = logged();
    logger.setLogLevels(['fatal', 'error', 'warn', 'log']);
    logger.debug('hidden', 'X');
    logger.log('shown', 'X');
    logger.setLogLevels(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
    logger.verbose('very', 'X');
    expect(lines.map((l) => [l['msg'], l['level']])).toEqual([
      ['shown', 30],
      ['very', 10],
    ]);
  });
});
