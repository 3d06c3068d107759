import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnvironment } from '@caravel/testing';
import { sandboxErrorReason } from '../sandbox.errors.js';
import type { Sandbox } from '../sandbox.types.js';
import { BwrapSandboxProvider, bwrapAvailable } from './bwrap.provider.js';

const SECRET = 'host secret\n';
/** Rounds always run; more run (up to MAX_ROUNDS) until operations met both the directory and the link. */
const ROUNDS = 150;
const MAX_ROUNDS = 2_000;

/** What a burst of file operations got while the agent swapped `d` between a directory and a link. */
interface RaceOutcome {
  /** Operations that found `d` a directory inside the workdir. */
  inside: number;
  /** Operations refused because `d` was a link out at the time they checked. */
  refused: number;
  /** Reads that returned the host's secret. */
  leaked: number;
  /** Operations that failed otherwise (`d` was missing between the agent's `rm` and `mkdir`). */
  other: number;
}

async function race(files: Pick<Sandbox, 'readFile' | 'writeFile'>): Promise<RaceOutcome> {
  const outcome: RaceOutcome = { inside: 0, refused: 0, leaked: 0, other: 0 };
  const count = (settled: PromiseSettledResult<unknown>) => {
    if (settled.status === 'fulfilled') {
      outcome.inside += 1;
      if (settled.value === SECRET) outcome.leaked += 1;
    } else if (sandboxErrorReason(settled.reason) === 'path_outside_workdir') outcome.refused += 1;
    else outcome.other += 1;
  };
  const metBoth = () => outcome.inside > 0 && outcome.refused > 0;
  for (let round = 0; round < MAX_ROUNDS && (round < ROUNDS || !metBoth()); round += 1) {
    const settled = await Promise.allSettled([
      files.writeFile(`d/pwned-${round}.txt`, 'x'),
      files.readFile('d/secret.txt'),
    ]);
    settled.forEach(count);
  }
  return outcome;
}

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
    await writeFile(join(outside, 'secret.txt'), SECRET);
    provider = new BwrapSandboxProvider({ rootDir: root });
    sandbox = await provider.create({ id: 'race' });
    await sandbox.writeFile('d/secret.txt', 'inside\n');
    // The agent's own loop: `d` is a directory, then a link to the host directory, and again.
    const swapper =
      `(while true; do rm -rf d; ln -s '${outside}' d; rm -f d; mkdir d; ` +
      `echo inside > d/secret.txt; done) >/dev/null 2>&1 &`;
    expect((await sandbox.exec(swapper)).exitCode).toBe(0);
  });

  afterAll(async () => {
    await sandbox?.close();
    await provider?.delete('race').catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('never reads or writes the host directory the link names', async () => {
    const outcome = await race(sandbox);
    expect(outcome.leaked).toBe(0);
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    // The race really ran: some operations met the directory, some the link (others found no
    // `d` at all, between the agent's rm and mkdir: how many depends on the machine's load).
    expect(outcome.inside).toBeGreaterThan(0);
    expect(outcome.refused).toBeGreaterThan(0);
  });
});
