import { Logger } from '@nestjs/common';
import { installLogger } from './install-logger.js';

// Canary secrets in the environment, then lines that carry them every way code might: in the
// message text, in a field under an innocent name, in an error's message and stack, quoted
// inside JSON. Nothing written may contain a canary, in either format.
const CANARIES = {
  GITHUB_WEBHOOK_SECRET: 'canary-webhook-5e1f',
  ANTHROPIC_API_KEY: 'sk-ant-canary-77aa',
  DATABASE_URL: 'postgres://caravel:canary-pw-9@db:5432/caravel',
  DASHBOARD_TOKEN: 'canary"token\\quoted-3b',
  GITHUB_WEBHOOK_SECRET_PREVIOUS: 'canary-previous-41c2',
  CARAVEL_TOKEN_KEYS: 'k2:canary-key-two-aa11,k1:canary-key-one-bb22',
  NATS_URL: 'nats://caravel:canary-nats-pw-5d@nats:4222',
};

/** What a line may carry of them: whole values, and a keyring's keys one by one. */
const CARRIED = [...Object.values(CANARIES), 'canary-key-one-bb22', 'canary-nats-pw-5d'];

function logEverything(): void {
  const log = new Logger('Probe');
  log.log(`calling with ${CANARIES.ANTHROPIC_API_KEY}`);
  log.warn({ note: CANARIES.GITHUB_WEBHOOK_SECRET, url: CANARIES.DATABASE_URL });
  log.error(new Error(`refused ${CANARIES.DASHBOARD_TOKEN}`));
  log.log(
    `rotating from ${CANARIES.GITHUB_WEBHOOK_SECRET_PREVIOUS}, opened with canary-key-one-bb22`,
  );
  log.warn(`nats password canary-nats-pw-5d refused`);
}

describe('secrets redacted by value', () => {
  afterEach(() => {
    Logger.overrideLogger(true);
  });

  it.each(['json', 'pretty'] as const)('finds no canary in any %s line', (format) => {
    const written: string[] = [];
    installLogger({
      service: 'probe',
      format,
      env: { ...CANARIES, PORT: '3001', LOG_LEVEL: 'info', SHORT_TOKEN: 'abc' },
      destination: { write: (text: string) => written.push(text) },
    });
    logEverything();
    const output = written.join('');
    expect(written).toHaveLength(5);
    for (const canary of CARRIED) expect(output).not.toContain(canary);
    expect(output).not.toContain('canary');
    expect(output).toContain('calling with [redacted]');
  });

  it('leaves ordinary values, and short ones, alone', () => {
    const written: string[] = [];
    installLogger({
      service: 'probe',
      env: { PORT: '3001', SHORT_TOKEN: 'abc', NATS_URL: 'nats://nats:4222' },
      destination: { write: (text: string) => written.push(text) },
    });
    new Logger('Probe').log('port 3001 abc nats://nats:4222');
    expect(written.join('')).toContain('port 3001 abc nats://nats:4222');
  });
});
