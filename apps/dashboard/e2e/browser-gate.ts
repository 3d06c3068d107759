import { bwrapAvailable } from '@caravel/sandbox';
import { testEnvironment } from '@caravel/testing';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** Flags that keep Chromium off the network this machine does not have (and quiet). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Why the browser tests cannot run here, or null: they need Chromium, and bubblewrap for the
 * run they watch (unless `needs` says they watch none). Outside CI a missing one skips them with "skipped: <reason>"; with CI=true it
 * is a failure, never a skip.
 */
export function missingBrowser(needs = { bubblewrap: true }): string | null {
  const reason = !existsSync(CHROMIUM)
    ? `Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`
    : needs.bubblewrap && !bwrapAvailable()
      ? 'bubblewrap is not installed (apt-get install bubblewrap)'
      : null;
  if (!reason) return null;
  if (testEnvironment.CI) throw new Error(`CI=true requires the browser: ${reason}`);
  process.stdout.write(`skipped: dashboard browser tests: ${reason}\n`);
  return reason;
}
