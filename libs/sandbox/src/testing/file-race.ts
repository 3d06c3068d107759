import { sandboxErrorReason } from '../sandbox.errors.js';
import type { Sandbox } from '../sandbox.types.js';

/** What the host file holds; a read that returns it leaked it. */
export const RACE_SECRET = 'host secret\n';
/** Rounds always run; more run (up to MAX_ROUNDS) until operations met both the directory and the link. */
const ROUNDS = 150;
const MAX_ROUNDS = 2_000;

/** What a burst of file operations got while the agent swapped `d` between a directory and a link. */
export interface RaceOutcome {
  /** Operations that found `d` a directory inside the workdir. */
  inside: number;
  /** Operations refused because `d` was a link out at the time they checked. */
  refused: number;
  /** Reads that returned the host's secret. */
  leaked: number;
  /** Operations that failed otherwise (`d` was missing between the agent's `rm` and `mkdir`). */
  other: number;
}

/**
 * The agent's own loop, as a background command: `d` is a directory (holding `secret.txt`), then
 * a link to `outside` (a host directory holding the host's `secret.txt`), and again.
 */
export function swapperCommand(outside: string): string {
  return (
    `(while true; do rm -rf d; ln -s '${outside}' d; rm -f d; mkdir d; ` +
    `echo inside > d/secret.txt; done) >/dev/null 2>&1 &`
  );
}

/**
 * Writes `d/pwned-<n>.txt` and reads `d/secret.txt` in pairs while the swapper runs, counting
 * what each got, until both the directory and the link were met.
 */
export async function raceFileOperations(
  files: Pick<Sandbox, 'readFile' | 'writeFile'>,
): Promise<RaceOutcome> {
  const outcome: RaceOutcome = { inside: 0, refused: 0, leaked: 0, other: 0 };
  const count = (settled: PromiseSettledResult<unknown>) => {
    if (settled.status === 'fulfilled') {
      outcome.inside += 1;
      if (settled.value === RACE_SECRET) outcome.leaked += 1;
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
