import { AppError } from '@caravel/errors';
import { Readable } from 'node:stream';
import { describeFailure, runCli, type CliIo } from './cli.js';

function io(): CliIo & { written: string[]; errors: string[] } {
  const written: string[] = [];
  const errors: string[] = [];
  return {
    written,
    errors,
    out: (text) => written.push(text),
    err: (text) => errors.push(text),
    stdin: Readable.from([]),
    onSignal: () => {
      throw new Error('no command here waits for a signal');
    },
  };
}

describe('caravel command line', () => {
  it('asks for a command before options, naming the command that was probably meant', async () => {
    const cli = io();
    expect(await runCli(['--port', '4000'], {}, cli)).toBe(2);
    expect(cli.errors.join('')).toMatch(
      /^caravel: a command comes first, then its options \(caravel start --port 4000\)\n\nUsage: caravel <command>/,
    );
  });

  it('refuses an unknown command with the whole usage', async () => {
    const cli = io();
    expect(await runCli(['strat'], {}, cli)).toBe(2);
    expect(cli.errors.join('')).toMatch(/^caravel: unknown command 'strat'\n\nUsage: caravel/);
  });

  it("prints one command's usage for help COMMAND and COMMAND --help", async () => {
    for (const args of [
      ['help', 'run'],
      ['run', '--help'],
      ['run', '-h'],
    ]) {
      const cli = io();
      expect(await runCli(args, {}, cli)).toBe(0);
      expect(cli.written.join('')).toMatch(/^Usage: caravel run …\n\n {2}run --repo PATH "TASK"/);
    }
  });

  it('says what a failure is without a stack, unless LOG_LEVEL=debug asks for it', () => {
    expect(describeFailure(new AppError('NOT_FOUND', 'no such thread'), {})).toBe('no such thread');
    const bug = new TypeError('x is undefined');
    expect(describeFailure(bug, {})).toBe(
      'x is undefined (unexpected: LOG_LEVEL=debug prints the stack)',
    );
    expect(describeFailure(bug, { LOG_LEVEL: 'debug' })).toMatch(
      /^TypeError: x is undefined\n\s+at /,
    );
  });
});

describe('caravel dead-letters: bad input, and no dashboard', () => {
  it('refuses a replay that names nothing to replay, saying how to name it', async () => {
    const cli = io();
    expect(await runCli(['dead-letters', 'replay'], {}, cli)).toBe(2);
    expect(cli.errors.join('')).toMatch(
      /^caravel dead-letters: replay needs dead-letter IDs .*--consumer, --since\/--until, or --all\n\nUsage: caravel dead-letters/,
    );
  });

  it('refuses a time it cannot read and a subcommand it does not know', async () => {
    const time = io();
    expect(await runCli(['dead-letters', 'list', '--since', 'yesterday-ish'], {}, time)).toBe(2);
    expect(time.errors.join('')).toMatch(/--since must be a time \(ISO 8601.*not 'yesterday-ish'/);
    const sub = io();
    expect(await runCli(['dead-letters', 'purge'], {}, sub)).toBe(2);
    expect(sub.errors.join('')).toMatch(/unknown dead-letters command 'purge' \(list or replay\)/);
    const all = io();
    expect(await runCli(['dead-letters', 'list', '--all'], {}, all)).toBe(2);
    expect(all.errors.join('')).toMatch(/--all is for replay/);
  });

  it('says when no dashboard answers, naming the URL, without a stack', async () => {
    const cli = io();
    // Port 9 (discard) on loopback: nothing listens there.
    const url = 'http://127.0.0.1:9';
    expect(await runCli(['dead-letters', '--url', url], {}, cli)).toBe(1);
    expect(cli.errors.join('')).toMatch(
      /^caravel dead-letters: no dashboard answers at http:\/\/127\.0\.0\.1:9 .*is Caravel running\?/,
    );
    expect(cli.errors.join('')).not.toMatch(/\n\s+at /);
  });
});
