import { expect, it } from '@jest/globals';
import type { ExecOptions, ExecResult, Sandbox } from '../sandbox.types.js';

/** What a streamed command delivered: its pieces, and how many came before its result. */
export interface StreamedRun {
  readonly result: ExecResult;
  readonly pieces: readonly string[];
  readonly piecesBeforeResult: number;
}

/** Runs `command` with an output listener, noting which pieces arrived before the result. */
export async function execStreamed(
  sandbox: Pick<Sandbox, 'exec'>,
  command: string,
  options: Omit<ExecOptions, 'onOutput'> = {},
): Promise<StreamedRun> {
  const pieces: string[] = [];
  const result = await sandbox.exec(command, { ...options, onOutput: (text) => pieces.push(text) });
  return { result, pieces, piecesBeforeResult: pieces.length };
}

/** A command that prints five numbered lines half a second apart. */
export const SLOW_LINES = 'for i in 1 2 3 4 5; do echo "line $i"; sleep 0.5; done';
const SLOW_OUTPUT = [1, 2, 3, 4, 5].map((i) => `line ${i}\n`).join('');

/**
 * Streamed output of `exec` (`onOutput`), for providers whose driver can stream (`local`, `bwrap`,
 * `docker`). `outputLimit` is the sandbox's `outputLimitBytes`.
 */
export function describeStreaming(get: () => Sandbox, outputLimit: number): void {
  it('streams a slow command in several ordered pieces before its result', async () => {
    const run = await execStreamed(get(), SLOW_LINES, { timeoutMs: 30_000 });
    expect(run.result).toMatchObject({ exitCode: 0, output: SLOW_OUTPUT, truncated: false });
    expect(run.piecesBeforeResult).toBe(run.pieces.length);
    expect(run.pieces.length).toBeGreaterThanOrEqual(3);
    expect(run.pieces.join('')).toBe(SLOW_OUTPUT);
  });

  it('stops streaming at the output limit with a note; the result keeps its elided shape', async () => {
    const run = await execStreamed(get(), "head -c 3000000 /dev/zero | tr '\\0' s", {
      timeoutMs: 30_000,
    });
    expect(run.result).toMatchObject({ exitCode: 0, truncated: true, outputBytes: 3_000_000 });
    expect(run.result.output).toContain(`${3_000_000 - outputLimit} bytes of output elided`);
    const streamed = run.pieces.join('');
    expect(streamed.startsWith('s'.repeat(outputLimit))).toBe(true);
    expect(streamed.slice(outputLimit)).toBe(
      `\n[... streaming stopped after ${outputLimit} bytes; the result keeps the end of the output ...]\n`,
    );
  });

  it('streams what a command printed before its timeout, as safe text', async () => {
    const run = await execStreamed(get(), "printf 'a\\033[31mb\\033[0m\\r\\n'; sleep 30", {
      timeoutMs: 1_000,
    });
    expect(run.result.timedOut).toBe(true);
    expect(run.pieces.join('')).toBe('ab\n');
    expect((await get().exec('echo after')).output).toBe('after\n');
  });

  it('keeps running a command whose listener throws, and streams nothing when none listens', async () => {
    const result = await get().exec('echo one; sleep 0.3; echo two', {
      onOutput: () => {
        throw new Error('display broke');
      },
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'one\ntwo\n' });
    expect(await get().exec('echo quiet')).toMatchObject({ output: 'quiet\n' });
  });
}
