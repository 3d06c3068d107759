import { AppError } from '@caravel/errors';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordingIo } from '../testing/recording-io.js';
import { describeFailure, runCli, type CliIo } from './cli.js';

/** A recording io whose signal hook fails the test: no command here waits for a signal. */
function io(): CliIo & { written: string[]; errors: string[] } {
  return {
    ...recordingIo(),
    onSignal: () => {
      throw new Error('no command here waits for a signal');
    },
  };
}

describe('caravel command line', () => {
  it('prints usage and help without setting up the logger, and sets it up for a command', async () => {
    let prepared = 0;
    const cli = { ...io(), prepare: () => Promise.resolve(void (prepared += 1)) };
    for (const args of [[], ['--help'], ['help'], ['help', 'run'], ['run', '--help']])
      expect(await runCli(args, {}, cli)).toBe(0);
    expect(prepared).toBe(0);
    expect(await runCli(['attach', 'not-a-thread'], {}, cli)).toBe(2);
    expect(prepared).toBe(1);
  });

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

describe('caravel analyze', () => {
  it('refuses anything but one OWNER/REPO', async () => {
    for (const args of [['analyze'], ['analyze', 'widgets'], ['analyze', 'acme/widgets', 'x']]) {
      const cli = io();
      expect(await runCli(args, {}, cli)).toBe(2);
      expect(cli.errors.join('')).toMatch(/^caravel analyze: give one repository as OWNER\/REPO/);
    }
  });

  it('asks the dashboard for a bootstrap with its token, and says where it runs', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ repository: 'acme/widgets', threadId: 't-1', requestId: 'r-1' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const cli = io();
      const env = { DASHBOARD_TOKEN: 'secret' };
      const url = `http://127.0.0.1:${port}`;
      expect(await runCli(['analyze', 'acme/widgets', '--url', url], env, cli)).toBe(0);
      expect(seen).toEqual(['POST /api/review-styles/acme/widgets/analyze Bearer secret']);
      expect(cli.written.join('')).toBe(
        "asked the analyzer to learn acme/widgets's review style (thread t-1, request r-1)\n",
      );
    } finally {
      server.close();
    }
  });
});

describe('caravel eval: bad input', () => {
  it.each([
    [['eval'], 'needs a subcommand: eval run SUITE --config C, or eval compare BASE CANDIDATE'],
    [['eval', 'rerun', 'suite'], "unknown eval command 'rerun'"],
    [['eval', 'run', 'suite'], 'run needs --config'],
    [['eval', 'run', 'suite', '--config', 'c', '--concurrency', 'x'], '--concurrency must be'],
    [['eval', 'compare', 'a.json'], 'compare needs two runs'],
    [
      ['eval', 'compare', 'a', 'b', '--alpha', '2'],
      "--alpha must be a number from 0 to 1, not '2'",
    ],
    [['eval', 'compare', 'a', 'b', '--max-drop', 'five'], '--max-drop must be a number'],
  ])('%j is a usage error', async (args, message) => {
    const cli = io();
    expect(await runCli(args, {}, cli)).toBe(2);
    expect(cli.errors.join('')).toContain(message);
    expect(cli.errors.join('')).toContain('eval compare BASE CANDIDATE');
  });

  it('says a missing run file is missing, without a stack (exit 1)', async () => {
    const cli = io();
    expect(
      await runCli(['eval', 'compare', '/nonexistent/a.json', '/nonexistent/b.json'], {}, cli),
    ).toBe(1);
    expect(cli.errors.join('')).toContain('/nonexistent/a.json: no such file');
    expect(cli.errors.join('')).not.toMatch(/\n\s+at /);
  });
});
