import { describe, expect, it, jest } from '@jest/globals';
import { Readable } from 'node:stream';
import { runCli } from './cli.js';
import { subcommandUsage } from './cli-usage.js';
import { runSwegen, SWEGEN_USAGE } from './swegen/swegen.command.js';

const USAGE = `Usage: tool <a|b> [options]

  a FILE        does a
    --x N       an option of a
                (continued)
  b             does b
    --y         an option of b
  shared (a): --z

Exit status: 0 ok.
`;

async function swegen(args: string[]): Promise<{ status: number; out: string[] }> {
  const out: string[] = [];
  const status = await runSwegen(args, {}, { out: (l) => out.push(l) > 0, err: () => true });
  return { status, out };
}

describe("a subcommand's own usage", () => {
  it('keeps its entry, the shared entries that serve it and the notes', () => {
    expect(subcommandUsage(USAGE, 'tool', 'a', { shared: ['a'] })).toBe(
      'Usage: caravel tool a [options]\n\n' +
        '  a FILE        does a\n    --x N       an option of a\n                (continued)\n' +
        '  shared (a): --z\n\nExit status: 0 ok.\n',
    );
    expect(subcommandUsage(USAGE, 'tool', 'b', { shared: ['a'] })).toBe(
      'Usage: caravel tool b [options]\n\n  b             does b\n    --y         an option of b\n\nExit status: 0 ok.\n',
    );
    expect(subcommandUsage(USAGE, 'tool', 'c')).toBeUndefined();
  });

  it('is what swegen SUB --help, -h and swegen help SUB print; swegen --help prints them all', async () => {
    for (const args of [
      ['create', '--help'],
      ['create', '-h'],
      ['help', 'create'],
    ]) {
      const { status, out } = await swegen(args);
      expect(status).toBe(0);
      expect(out.join('')).toMatch(
        /^Usage: caravel swegen create \[options\]\n\n {2}create --repo/,
      );
      expect(out.join('')).toContain('--publish-repo OWNER/REPO');
      expect(out.join('')).not.toContain('validate TASK_OR_DIR');
      expect(out.join('')).toContain('Exit status: 0 ok');
    }
    const validate = (await swegen(['validate', '--help'])).out.join('');
    expect(validate).toContain('NOP must score 0 and Oracle 1');
    expect(validate).not.toContain('--publish-repo');
    expect(await swegen(['--help'])).toEqual({ status: 0, out: [SWEGEN_USAGE] });
  });

  it('is what caravel help swegen SUB prints', async () => {
    const written: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((text) => {
      written.push(String(text));
      return true;
    });
    try {
      const io = {
        out: () => undefined,
        err: () => undefined,
        stdin: Readable.from([]),
        onSignal: () => undefined,
      };
      expect(await runCli(['help', 'swegen', 'validate'], {}, io)).toBe(0);
    } finally {
      stdout.mockRestore();
    }
    expect(written.join('')).toMatch(/^Usage: caravel swegen validate \[options\]\n/);
  });
});
