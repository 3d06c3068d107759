import { RunStatus } from './run-status.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('caravel run status', () => {
  it('writes each new activity as a plain line when there is no terminal, and repeats a long one', () => {
    const lines: string[] = [];
    const time = clock();
    const status = new RunStatus({ line: (l) => lines.push(l) }, time.now);
    status.set('step 0: calling the model');
    status.set('step 0: calling the model');
    status.note('ignored without a terminal');
    time.advance(10_000);
    status.tick();
    time.advance(25_000);
    status.tick();
    status.line('  step 0: execute ls');
    status.set('step 1: running a command');
    status.stop();
    status.tick();
    expect(lines).toEqual([
      '  … step 0: calling the model',
      '  … still step 0: calling the model (35 s)',
      '  step 0: execute ls',
      '  … step 1: running a command',
    ]);
  });

  it('rewrites one line in place on a terminal, under the lines that stay', () => {
    const lines: string[] = [];
    const screen: string[] = [];
    const time = clock();
    const status = new RunStatus(
      { line: (l) => lines.push(l), terminal: { columns: 80, write: (t) => screen.push(t) } },
      time.now,
    );
    status.set('step 2: running a command');
    time.advance(3_500);
    status.note('PASS test/slugify.test.js');
    status.line('  step 2: execute npm test');
    status.stop();
    expect(lines).toEqual(['  step 2: execute npm test']);
    expect(screen).toEqual([
      '\r\x1b[2K  … step 2: running a command · 0 s',
      '\r\x1b[2K  … step 2: running a command · 3 s · PASS test/slugify.test.js',
      '\r\x1b[2K',
      '\r\x1b[2K  … step 2: running a command · 3 s · PASS test/slugify.test.js',
      '\r\x1b[2K',
    ]);
  });

  it('cuts the status line to the terminal width', () => {
    const screen: string[] = [];
    const status = new RunStatus(
      { line: () => undefined, terminal: { columns: 30, write: (t) => screen.push(t) } },
      () => 0,
    );
    status.set('step 12: running a command that is long');
    expect(screen[0]).toBe('\r\x1b[2K  … step 12: running a comma…');
    expect(screen[0]!.length - '\r\x1b[2K'.length).toBe(29);
  });
});
