// The generators import the workspace's built entries (`@caravel/*` resolve to each project's
// dist): build them first, and stop when the build fails.
import { spawnSync } from 'node:child_process';

/** The repository root, with a trailing slash. */
export const root = new URL('../..', import.meta.url).pathname;

/** Builds every project (tools/scripts/build.mjs); exits the process when the build fails. */
export function buildWorkspace() {
  const build = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(1);
}
