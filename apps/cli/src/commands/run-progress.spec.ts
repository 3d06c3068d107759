import { afterEach, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addStep, progressLine } from './run-progress.js';
import { runTask } from './run.command.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('caravel run progress', () => {
  it('sums tool calls, tokens and cost over the steps and shows the time', () => {
    const zero = { toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
    const totals = [
      { toolCalls: [{}], usage: { inputTokens: 1200, outputTokens: 40, costUsd: 0.01 } },
      { toolCalls: [{}, {}], usage: { inputTokens: 1800, outputTokens: 60 } },
      { thought: 'a person ran a command' },
    ].reduce(addStep, zero);
    expect(totals).toEqual({ toolCalls: 3, inputTokens: 3000, outputTokens: 100, costUsd: 0.01 });
    expect(progressLine(totals, 4210)).toBe(
      'tool calls 3 · tokens 3,000 in / 100 out · $0.0100 · 4.2 s',
    );
  });
});

describe('caravel run before the platform starts', () => {
  it('creates a missing --data-dir and removes its repository copy when the run fails', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-run-cleanup-'));
    const repo = join(dir, 'not-a-repository');
    mkdirSync(repo);
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    writeFileSync(join(dir, 'script.json'), JSON.stringify({ responses: [{ content: 'hi' }] }));
    const dataDir = join(dir, 'new', 'data');
    const temporary: string[] = [];
    const lines: string[] = [];
    // No PATH: the sandbox preflight has nothing to look at; the missing bundle fails the run
    // after the data directory and the repository copy exist, before the platform boots.
    const failed = runTask(
      { CARAVEL_FILE_ROOT: dir },
      {
        repo,
        task: 'anything',
        model: 'scripted:script.json',
        dataDir,
        toolsDir: dir,
        bundles: ['missing'],
        onTemporaryDir: (path) => temporary.push(path),
        write: (line) => lines.push(line),
      },
    );
    await expect(failed).rejects.toThrow(`no SWE-agent bundle 'missing' in ${dir}`);
    expect(existsSync(dataDir)).toBe(true);
    expect(temporary).toHaveLength(1);
    expect(temporary[0]).toMatch(/caravel-repo-/);
    expect(existsSync(temporary[0] ?? '')).toBe(false);
    expect(lines.join('\n')).toContain('is not a git repository of its own: working on a copy');
  });
});
