import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BundleShell } from './bundle-install.js';
import { readSandboxFile } from './sandbox-file.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Bash on this machine as the session, with a session's output limit (its output is cut past it). */
function shellWithLimit(limit: number): BundleShell & { calls: number } {
  const shell = {
    calls: 0,
    exec: (command: string) => {
      shell.calls += 1;
      const run = spawnSync('bash', ['--norc', '--noprofile', '-c', command], {
        encoding: 'utf8',
        env: { PATH: '/usr/bin:/bin' },
      });
      const output = `${run.stdout}${run.stderr}`;
      return Promise.resolve({
        exitCode: run.status ?? 1,
        output: output.slice(0, limit),
        timedOut: false,
        truncated: output.length > limit,
        outputBytes: output.length,
        elapsedMs: 0,
      });
    },
  };
  return shell;
}

describe('readSandboxFile', () => {
  it('reads a file larger than the output limit, byte for byte, in chunks', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-sandbox-file-'));
    const line = 'diff --git a/é.txt b/é.txt\r\n+\u0000 changed\n';
    const bytes = Buffer.from(line.repeat(6000));
    writeFileSync(join(dir, 'model.patch'), bytes);
    const shell = shellWithLimit(100_000);
    const read = await readSandboxFile(shell, join(dir, 'model.patch'));
    expect(read?.equals(bytes)).toBe(true);
    expect(shell.calls).toBe(1 + Math.ceil(bytes.length / 48_000));
  });

  it('gives null for a missing file and an empty buffer for an empty one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-sandbox-file-'));
    writeFileSync(join(dir, 'empty'), '');
    expect(await readSandboxFile(shellWithLimit(1000), join(dir, 'absent'))).toBeNull();
    expect((await readSandboxFile(shellWithLimit(1000), join(dir, 'empty')))?.length).toBe(0);
  });
});
