import { AppError } from '@caravel/errors';
import { join } from 'node:path';
import type { OneShotResult, OneShotRunner } from '../providers/one-shot.js';
import { BOT_IDENTITY } from './host-git.js';

/** Bundles larger than this are refused (a sandbox could otherwise fill the host's disk). */
export const MAX_EXPORT_BYTES = 4 * 1024 ** 3;
const EXPORT_TIMEOUT_MS = 10 * 60_000;

/** A commit id as git prints it (SHA-1 or SHA-256). */
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

// Both scripts run inside the sandbox (as its user, in its confinement) and write a bundle to
// standard output; what they report goes to standard error on one tagged line. Their arguments
// are argv, never spliced into the script.

/**
 * `$1`: the ref to export; the rest: commits the host has (left out of the bundle when the
 * sandbox has them too). Exit 3: no such ref; 4: nothing the host lacks (no bundle).
 */
const EXPORT_REF_SCRIPT = `set -eu
ref=$1; shift
tip=$(git rev-parse --verify --quiet "$ref^{commit}") || { echo "no commit at $ref" >&2; exit 3; }
echo "caravel-tip $tip" >&2
exclude=()
for commit in "$@"; do
  if git cat-file -e "$commit^{commit}" 2>/dev/null; then exclude+=("^$commit"); fi
done
if [ -z "$(git rev-list -n 1 "$tip" "\${exclude[@]}")" ]; then exit 4; fi
exec git bundle create --quiet - "$ref" "\${exclude[@]}"
`;

/**
 * `$1`: a label. Records the worktree as it is (tracked and untracked files, in a scratch index)
 * as a commit on HEAD under refs/caravel/reclaimed/<label>, then bundles every ref. Exit 4:
 * nothing unsaved (clean, and every commit on a remote-tracking ref); 5: not a repository.
 */
const SNAPSHOT_SCRIPT = `set -eu
label=$1
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git repository" >&2; exit 5; }
dirty=$(git status --porcelain --untracked-files=all)
head=$(git rev-parse -q --verify 'HEAD^{commit}' || true)
unpushed=0
if [ -n "$head" ]; then unpushed=$(git rev-list --count HEAD --not --remotes); fi
if [ -z "$dirty" ] && [ "$unpushed" = 0 ]; then exit 4; fi
GIT_INDEX_FILE=$(mktemp); export GIT_INDEX_FILE
if [ -n "$head" ]; then git read-tree "$head"; fi
git add -A
tree=$(git write-tree)
if [ -n "$head" ]; then parent=(-p "$head"); else parent=(); fi
commit=$(git commit-tree "$tree" "\${parent[@]}" -m "caravel: worktree of $label when it was reclaimed")
git update-ref "refs/caravel/reclaimed/$label" "$commit"
echo "caravel-commit $commit" >&2
exec git bundle create --quiet - --all
`;

/** What an export found: the ref's commit, and the bundle holding what the host lacked. */
export interface RefExport {
  readonly tip: string;
  /** Null when the host already has every object (nothing new). */
  readonly bundle: string | null;
}

/** The tagged value a script reported on standard error, checked to be a commit id. */
function reported(result: OneShotResult, tag: string): string {
  const line = result.stderr.split('\n').find((text) => text.startsWith(`${tag} `));
  const value = line?.slice(tag.length + 1).trim() ?? '';
  if (!COMMIT_ID.test(value)) {
    throw new AppError('PRECONDITION_FAILED', `the sandbox did not report its ${tag}`, {
      details: { stderr: result.stderr.slice(-2000) },
    });
  }
  return value;
}

function failed(what: string, result: OneShotResult): AppError {
  return new AppError(
    'PRECONDITION_FAILED',
    `${what} failed in the sandbox (exit ${result.exitCode}): ${result.stderr.trim().slice(-2000)}`,
  );
}

/**
 * Takes `ref`'s commits out of a sandbox as a git bundle written by git inside the sandbox: the
 * host receives bytes, never reads the sandbox's repository, config or hooks. `known` are
 * commits the host holds already; `scratchDir` is a host directory only the host can write.
 */
export async function exportRef(
  runner: OneShotRunner,
  sandboxId: string,
  ref: string,
  known: readonly string[],
  scratchDir: string,
): Promise<RefExport> {
  const bundle = join(scratchDir, 'export.bundle');
  const result = await runner.runOneShot(
    sandboxId,
    ['bash', '-c', EXPORT_REF_SCRIPT, 'caravel-export', ref, ...known],
    { outputFile: bundle, maxOutputBytes: MAX_EXPORT_BYTES, timeoutMs: EXPORT_TIMEOUT_MS },
  );
  if (result.exitCode === 3) {
    throw new AppError('PRECONDITION_FAILED', `the sandbox has no commit at ${ref}`);
  }
  if (result.exitCode !== 0 && result.exitCode !== 4) throw failed(`exporting ${ref}`, result);
  return { tip: reported(result, 'caravel-tip'), bundle: result.exitCode === 4 ? null : bundle };
}

/** A reclaimed sandbox's saved work: a bundle of every ref plus the worktree's commit. */
export interface WorkBundle {
  readonly path: string;
  readonly commit: string;
}

/**
 * Saves a sandbox's unsaved work (uncommitted changes, untracked files, unpushed commits) into
 * `outputFile`, made inside the sandbox; null when there is nothing unsaved. A workdir that is
 * not a repository fails with PRECONDITION_FAILED: it cannot be judged, so it must not be deleted.
 */
export async function bundleUnsavedWork(
  runner: OneShotRunner,
  sandboxId: string,
  label: string,
  outputFile: string,
): Promise<WorkBundle | null> {
  const result = await runner.runOneShot(
    sandboxId,
    [
      'env',
      `GIT_AUTHOR_NAME=${BOT_IDENTITY.name}`,
      `GIT_AUTHOR_EMAIL=${BOT_IDENTITY.email}`,
      `GIT_COMMITTER_NAME=${BOT_IDENTITY.name}`,
      `GIT_COMMITTER_EMAIL=${BOT_IDENTITY.email}`,
      'bash',
      '-c',
      SNAPSHOT_SCRIPT,
      'caravel-snapshot',
      label,
    ],
    { outputFile, maxOutputBytes: MAX_EXPORT_BYTES, timeoutMs: EXPORT_TIMEOUT_MS },
  );
  if (result.exitCode === 4) return null;
  if (result.exitCode !== 0) throw failed(`saving the work of ${label}`, result);
  return { path: outputFile, commit: reported(result, 'caravel-commit') };
}
