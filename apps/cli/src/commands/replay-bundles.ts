import type { ReplayOptions, Traj } from '@caravel/agent';
import { AppError } from '@caravel/errors';
import {
  installBundles,
  loadBundles,
  readSandboxFile,
  readBundleState,
  stageBundles,
  sweAgentBinds,
  sweRepoDir,
  SWE_AGENT_PATHS,
  type Sandbox,
  type SandboxBind,
  type ToolBundle,
} from '@caravel/sandbox';
import { basename, join } from 'node:path';

/** Where SWE-agent bundles come from (`--tools-dir`, `--bundle`). */
export interface BundleSelection {
  /** A folder of bundles, or a SWE-agent checkout (its `tools/`); never fetched. */
  toolsDir?: string;
  /** Bundle names in order; default: the bundles the trajectory's `replay_config` names. */
  bundles?: readonly string[];
}

/** SWE-agent's tools, loaded and staged for one sandbox. */
export interface SweTools {
  readonly bundles: readonly ToolBundle[];
  /** `/<repo>` when the trajectory names its repository, else the sandbox's workspace. */
  readonly repoDir: string;
  /** The bwrap binds that give the sandbox SWE-agent's layout. */
  readonly binds: readonly SandboxBind[];
  readonly env: Record<string, string>;
  readonly registry: Record<string, unknown>;
}

function objectAt(value: unknown, ...keys: string[]): Record<string, unknown> {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return {};
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'object' && current !== null && !Array.isArray(current)
    ? (current as Record<string, unknown>)
    : {};
}

function replayConfig(traj: Traj): unknown {
  try {
    return traj.replay_config === null ? {} : (JSON.parse(traj.replay_config) as unknown);
  } catch {
    return {};
  }
}

/** The bundles `replay_config` names (`agent.tools.bundles[].path`, by folder name). */
export function bundlesOfReplayConfig(traj: Traj): string[] {
  const tools = objectAt(replayConfig(traj), 'agent', 'tools');
  const listed = Array.isArray(tools['bundles']) ? (tools['bundles'] as unknown[]) : [];
  return listed.flatMap((entry) => {
    const path = objectAt(entry)['path'];
    return typeof path === 'string' && path !== '' ? [basename(path)] : [];
  });
}

/** The folder the first recorded state's `working_dir` is in (`/<repo>`: where a run starts). */
function recordedRepoName(traj: Traj): string | null {
  const dir = traj.trajectory.map((step) => step.state['working_dir']).find((d) => d !== undefined);
  return typeof dir === 'string' ? (/^\/([^/]+)/.exec(dir)?.[1] ?? null) : null;
}

/**
 * The repository's folder name in SWE-agent's sandbox (`/<name>`), as its repo configs name it:
 * `repo_name`, `owner__repo` of a GitHub URL, or the last part of a local path; for a file
 * without them (0.x), the top folder of the first recorded `working_dir`.
 */
export function repoNameOf(traj: Traj): string | null {
  const repo = objectAt(replayConfig(traj), 'env', 'repo');
  const named = repo['repo_name'];
  if (typeof named === 'string' && named !== '') return named;
  const url = repo['github_url'];
  if (typeof url === 'string') {
    const match = /github\.com[/:]([^/]+)\/([^/]+?)(\.git)?\/?$/.exec(url);
    if (match) return `${match[1]}__${match[2]}`;
  }
  const path = repo['path'];
  if (typeof path === 'string' && path !== '') {
    return basename(path.replace(/\/+$/, '')).replace(/ /g, '-').replace(/'/g, '');
  }
  return recordedRepoName(traj);
}

function stringRecord(value: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

/** SWE-agent exports the task as `PROBLEM_STATEMENT` (its review stage quotes it); when the file has its text. */
function problemStatement(traj: Traj): Record<string, string> {
  const text = objectAt(replayConfig(traj), 'problem_statement')['text'];
  return typeof text === 'string' ? { PROBLEM_STATEMENT: text } : {};
}

/**
 * Loads the selected bundles from the host (as data) and stages their read-only copy under
 * `rootDir`; null when no bundles are asked for.
 * @throws AppError naming what is missing: `--tools-dir`, a bundle, or a bundle's `bin/`.
 */
export async function prepareSweTools(
  selection: BundleSelection,
  traj: Traj,
  name: string,
  rootDir: string,
): Promise<SweTools | null> {
  const asked = selection.bundles ?? [];
  if (selection.toolsDir === undefined) {
    if (asked.length === 0) return null;
    throw new AppError(
      'BAD_REQUEST',
      '--bundle needs --tools-dir (a folder of bundles or a SWE-agent checkout)',
    );
  }
  const names = asked.length > 0 ? [...asked] : bundlesOfReplayConfig(traj);
  if (names.length === 0) {
    throw new AppError(
      'BAD_REQUEST',
      `${name} names no tool bundles in its replay_config: pass --bundle NAME`,
    );
  }
  const bundles = await loadBundles(selection.toolsDir, names);
  const staged = join(rootDir, 'swe-tools');
  await stageBundles(bundles, staged);
  const repoName = repoNameOf(traj);
  const tools = objectAt(replayConfig(traj), 'agent', 'tools');
  return {
    bundles,
    repoDir: repoName === null ? '/workspace' : sweRepoDir(repoName),
    binds: sweAgentBinds({ repoName, stagedTools: staged }),
    env: { ...problemStatement(traj), ...stringRecord(objectAt(tools, 'env_variables')) },
    registry: objectAt(tools, 'registry_variables'),
  };
}

/**
 * Installs the tools in a fresh sandbox and gives the replay what SWE-agent reads after each
 * step: the state file (`stateAfter`) and, on its sentinel, the patch file (`readSubmission`,
 * read in base64 chunks inside the sandbox so its bytes arrive unchanged, whatever its size).
 */
export async function installSweTools(
  tools: SweTools,
  sandbox: Sandbox,
  write: (line: string) => void,
): Promise<Pick<ReplayOptions, 'stateAfter' | 'readSubmission'>> {
  await installBundles(sandbox, tools.bundles, {
    repoDir: tools.repoDir,
    env: tools.env,
    registry: tools.registry,
  });
  write(
    `installed SWE-agent bundles ${tools.bundles.map((b) => b.name).join(', ')} (repository at ${tools.repoDir})`,
  );
  return {
    stateAfter: async () => {
      const read = await readBundleState(sandbox, tools.bundles);
      for (const warning of read.warnings) write(`  state: ${warning}`);
      return read.state;
    },
    readSubmission: async () =>
      (await readSandboxFile(sandbox, SWE_AGENT_PATHS.patch))?.toString('utf8') ?? null,
  };
}
