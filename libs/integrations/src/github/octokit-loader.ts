import type { Octokit } from '@octokit/rest';

let loading: Promise<typeof Octokit> | undefined;

/**
 * Octokit's class, loaded by the first GitHub call rather than by every process that may make one
 * (~10 MiB and 0.1-0.4 s that an idle `caravel start` does not need).
 */
export function loadOctokit(): Promise<typeof Octokit> {
  loading ??= import('@octokit/rest').then((module) => module.Octokit);
  return loading;
}
