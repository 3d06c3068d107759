import { createLogger } from './create-logger.js';
import { runWithLogFields } from './log-context.js';
import { prettyLine } from './pretty.js';

describe('pretty output (embedded and CLI)', () => {
  it('writes time, level, service and context, the message, then the bound fields', () => {
    const written: string[] = [];
    const logger = createLogger({
      service: 'caravel',
      format: 'pretty',
      destination: { write: (text: string) => written.push(text) },
    });
    runWithLogFields({ correlationId: 'corr-9', threadId: 't-9' }, () =>
      logger.child({ context: 'Bus' }).warn('nak: retrying'),
    );
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} WARN {2}\[caravel Bus\] nak: retrying {2}correlationId=corr-9 threadId=t-9\n$/,
    );
  });

  it("prints an error's stack under its line and quotes values with spaces", () => {
    const line = prettyLine(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: 'failed',
        reason: 'two words',
        err: { stack: 'Error: x\n    at y' },
      }),
    );
    expect(line).toBe('00:00:00.000 ERROR failed  reason="two words"\nError: x\n    at y\n');
  });

  it('sends warnings and errors to the error destination when there is one', () => {
    const out: string[] = [];
    const errors: string[] = [];
    const logger = createLogger({
      service: 'caravel',
      format: 'pretty',
      destination: { write: (text: string) => out.push(text) },
      errorDestination: { write: (text: string) => errors.push(text) },
    });
    logger.info('ready');
    logger.error('failed');
    expect(out).toEqual([expect.stringContaining('INFO  [caravel] ready')]);
    expect(errors).toEqual([expect.stringContaining('ERROR [caravel] failed')]);
  });

  it('passes a line that is not JSON through', () => {
    expect(prettyLine('plain text')).toBe('plain text\n');
  });
});
