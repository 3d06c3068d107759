import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { createShaper, NO_OUTPUT_MESSAGE } from '../core/observation.js';
import { resolveToolOptions } from '../core/tool-options.js';
import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { executeTool } from './execute.tool.js';

describe('execute', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({ 'a.txt': 'alpha\n' });
  });
  afterEach(() => repo.remove());

  const tool = () => executeTool(repo.sandbox, resolveToolOptions());

  it('runs the command in the repository and returns its output', async () => {
    const result = await tool().invoke({ command: 'cat a.txt; echo oops >&2' });
    expect(result).toMatchObject({ ok: true, output: { exitCode: 0, timedOut: false } });
    expect(result.observation).toBe('alpha\noops\n');
  });

  it('says so when a successful command prints nothing', async () => {
    const result = await tool().invoke({ command: 'true' });
    expect(result.observation).toBe(NO_OUTPUT_MESSAGE);
  });

  it('reports a non-zero exit code, also when there was no output', async () => {
    const failing = await tool().invoke({ command: 'echo bad; exit 3' });
    expect(failing.observation).toBe('bad\n\n[exit code: 3]');
    const silent = await tool().invoke({ command: 'exit 2' });
    expect(silent.observation).toBe('The command produced no output.\n[exit code: 2]');
  });

  it('clips long output and reports the elided count', async () => {
    const clipped = executeTool(repo.sandbox, resolveToolOptions({ shape: createShaper(100) }));
    const result = await clipped.invoke({ command: 'printf "%0500d" 0' });
    expect(result).toMatchObject({ ok: true, output: { truncated: true, elidedChars: 400 } });
    expect(result.observation).toContain('<response clipped: 400 characters elided>');
  });

  it('accepts a shaping function from the loop library', async () => {
    const custom = executeTool(
      repo.sandbox,
      resolveToolOptions({
        shape: (raw) => ({
          text: `<<${raw.trim()}>>`,
          empty: false,
          truncated: false,
          elidedChars: 0,
        }),
      }),
    );
    expect((await custom.invoke({ command: 'echo hi' })).observation).toBe('<<hi>>');
  });

  it('stops a command at its timeout and says it timed out', async () => {
    // Two seconds: long enough for `echo` to run first on a loaded machine, short for the suite.
    const result = await tool().invoke({ command: 'echo started; sleep 30', timeout_seconds: 2 });
    expect(result).toMatchObject({ ok: true, output: { timedOut: true, exitCode: null } });
    expect(result.observation).toContain('timed out after 2 seconds');
    expect(result.observation).toContain('started');
  });

  it('rejects an empty command or an out-of-range timeout as bad input', async () => {
    for (const input of [{ command: '  ' }, { command: 'ls', timeout_seconds: -1 }, {}]) {
      const result = await tool().invoke(input);
      expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    }
  });
});
