import { testEnvironment } from '@caravel/testing';
import { BwrapSandboxProvider, bwrapAvailable } from './bwrap.provider.js';
import { describeSandboxBehaviour } from '../testing/sandbox-behaviour.suite.js';

// A secret in the host environment that must never be visible inside the sandbox.
// eslint-disable-next-line no-restricted-syntax -- the test plants the probe on purpose
process.env['CARAVEL_SECRET_PROBE'] = 'host-secret-value';

const missing = !bwrapAvailable();

describeSandboxBehaviour({
  name: 'bwrap',
  isolated: true,
  // Only outside CI may a missing bubblewrap skip the suite; in CI it must fail instead.
  skipReason: missing && !testEnvironment.CI ? 'bwrap is not installed at /usr/bin/bwrap' : null,
  make: (rootDir) =>
    new BwrapSandboxProvider({
      rootDir,
      timing: { killGraceMs: 1_000, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 },
    }),
});
