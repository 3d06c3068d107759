import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import type { Sandbox } from '../sandbox.types.js';
import { RACE_SECRET, raceFileOperations, swapperCommand } from '../testing/file-race.js';
import { BwrapSandboxProvider, bwrapAvailable } from './bwrap.provider.js';

// Without bubblewrap nothing here can run; in CI it must.
const missing = !bwrapAvailable();
if (missing && !testEnvironment.CI) {
  process.stdout.write(
    'bwrap file race skipped: bubblewrap is not installed (apt-get install bubblewrap)\n',
  );
}
const maybe = missing && !testEnvironment.CI ? describe.skip : describe;

maybe('file operations on a bwrap sandbox while the agent swaps a directory for a link', () => {
  let root: string;
  let outside: string;
  let provider: BwrapSandboxProvider;
  let sandbox: Sandbox;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-file-race-'));
    await chmod(root, 0o755);
    outside = await mkdtemp(join(tmpdir(), 'caravel-outside-'));
    await chmod(outside, 0o777);
    await writeFile(join(outside, 'secret.txt'), RACE_SECRET);
    provider = new BwrapSandboxProvider({ rootDir: root });
    sandbox = await provider.create({ id: 'race' });
    await sandbox.writeFile('d/secret.txt', 'inside\n');
    expect((await sandbox.exec(swapperCommand(outside))).exitCode).toBe(0);
  });

  afterAll(async () => {
    await sandbox?.close();
    await provider?.delete('race').catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('never reads or writes the host directory the link names', async () => {
    const outcome = await raceFileOperations(sandbox);
    expect(outcome.leaked).toBe(0);
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    // The race really ran: some operations met the directory, some the link (others found no
    // `d` at all, between the agent's rm and mkdir: how many depends on the machine's load).
    expect(outcome.inside).toBeGreaterThan(0);
    expect(outcome.refused).toBeGreaterThan(0);
  });
});
