import type { Traj } from '../trajectory/traj.schema.js';

/** Where a recorded run started, as far as its `.traj` says. */
export interface ReplayStart {
  /** The repository to clone (a local path or URL); null when the file does not say. */
  cloneUrl: string | null;
  /** The commit the run started from. */
  baseCommit: string | null;
  /** The run's branch (what `commit_and_open_pr` reported). */
  branch: string | null;
  model: string | null;
  threadId: string | null;
}

const COMMIT = /^[0-9a-f]{7,40}$/;

function objectAt(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return {};
  const inner = (value as Record<string, unknown>)[key];
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
}

function stringAt(value: Record<string, unknown>, ...keys: string[]): string | null {
  for (const key of keys) {
    const found = value[key];
    if (typeof found === 'string' && found !== '') return found;
  }
  return null;
}

function decode(replayConfig: string | null): unknown {
  if (replayConfig === null) return {};
  try {
    return JSON.parse(replayConfig) as unknown;
  } catch {
    // SWE-agent sometimes stores YAML or nothing useful here; the starting point is then unknown.
    return {};
  }
}

/** Caravel's own record of the run (top-level `caravel`), when the file has one. */
function caravelStart(traj: Traj): ReplayStart | null {
  const info = objectAt(traj, 'caravel');
  if (Object.keys(info).length === 0) return null;
  const repo = objectAt(info, 'repository');
  if (Object.keys(repo).length === 0) return null;
  const baseCommit = stringAt(repo, 'base_commit');
  return {
    cloneUrl: stringAt(repo, 'clone_url'),
    baseCommit: baseCommit !== null && COMMIT.test(baseCommit) ? baseCommit : null,
    branch: stringAt(repo, 'branch'),
    model: stringAt(info, 'model'),
    threadId: stringAt(info, 'thread_id'),
  };
}

/**
 * Reads the starting point of a `.traj`: Caravel's top-level `caravel` record, else its
 * `replay_config` (older Caravel files: `env.repo.clone_url`, `branch`, `caravel.thread_id`;
 * SWE-agent's: `env.repo.path` or `github_url`, `env.repo.base_commit`, `agent.model.name`).
 * Anything missing is null.
 */
export function replayStartOf(traj: Traj): ReplayStart {
  const own = caravelStart(traj);
  if (own !== null) return own;
  const config = decode(traj.replay_config);
  const repo = objectAt(objectAt(config, 'env'), 'repo');
  const model = objectAt(objectAt(config, 'agent'), 'model');
  const baseCommit = stringAt(repo, 'base_commit');
  return {
    cloneUrl: stringAt(repo, 'clone_url', 'path', 'github_url'),
    baseCommit: baseCommit !== null && COMMIT.test(baseCommit) ? baseCommit : null,
    branch: stringAt(repo, 'branch'),
    model: stringAt(model, 'name'),
    threadId: stringAt(objectAt(config, 'caravel'), 'thread_id'),
  };
}
