import { bwrapAvailable } from '@caravel/sandbox';
import { testEnvironment } from '@caravel/testing';
import { describe } from '@jest/globals';

/** Why a scenario that tests isolation cannot run on this machine. */
export const BWRAP_MISSING = 'bubblewrap is not installed (apt-get install bubblewrap)';

/**
 * The sandbox provider of scenarios that test the runner's loop rather than isolation: bubblewrap
 * where it is installed, else `local` (commands run on the host), so they run on any machine.
 */
export function loopSandboxProvider(): 'bwrap' | 'local' {
  return bwrapAvailable() ? 'bwrap' : 'local';
}

/** Runs a suite that tests isolation, or says why it cannot. */
export interface IsolationGate {
  /** Null when bubblewrap is installed, else why the suite cannot run. */
  readonly missing: string | null;
  describe(name: string, body: () => void): void;
}

/**
 * Scenarios that test isolation need bubblewrap: without it they print
 * `skipped: bubblewrap is not installed (apt-get install bubblewrap)` and are skipped, except
 * with CI=true, where a missing bubblewrap is a failure, never a skip (as PostgreSQL and NATS
 * are for the service gates).
 */
export function isolationGate(
  machine: { bwrap: boolean; ci: boolean } = { bwrap: bwrapAvailable(), ci: testEnvironment.CI },
): IsolationGate {
  const missing = machine.bwrap ? null : BWRAP_MISSING;
  if (missing && machine.ci) throw new Error(`CI=true requires bubblewrap: ${missing}`);
  return {
    missing,
    describe(name, body) {
      if (!missing) {
        describe(name, body);
        return;
      }
      process.stdout.write(`skipped: ${missing}\n`);
      describe.skip(`${name} (skipped: ${missing})`, body);
    },
  };
}
