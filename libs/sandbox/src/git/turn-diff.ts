import { AppError } from '@caravel/errors';
import type { Sandbox } from '../sandbox.types.js';
import { runGitScript, shellQuote, type GitLocation } from './git-script.js';
import { turnRef, WORKTREE } from './turn-checkpoint.js';
import { WORKTREE_TREE_SCRIPT } from './worktree-tree.js';

/** How a file differs between two checkpoints. */
export type TurnFileStatus = 'added' | 'modified' | 'deleted' | 'type-changed';

/** One changed file; `path` is relative to the repository root. */
export interface TurnFileChange {
  readonly path: string;
  readonly status: TurnFileStatus;
}

/** The files a turn changed. */
export interface TurnDiff {
  readonly files: readonly TurnFileChange[];
  /** More files changed than `maxFiles`; `files` holds the first ones in path order. */
  readonly truncated: boolean;
  readonly totalFiles: number;
}

/** Options of `turnDiff`. */
export interface TurnDiffOptions extends GitLocation {
  /** At most this many files are listed (default 200). */
  readonly maxFiles?: number;
}

const STATUS: Record<string, TurnFileStatus> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  T: 'type-changed',
};

function parseNameStatus(raw: Buffer): TurnFileChange[] {
  const fields = raw.toString('utf8').split('\0');
  const files: TurnFileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = STATUS[fields[i] ?? ''];
    const path = fields[i + 1];
    if (!status || path === undefined) {
      throw new AppError('INTERNAL', `unexpected git status ${JSON.stringify(fields[i])}`);
    }
    files.push({ path, status });
  }
  return files;
}

/**
 * The files that differ between the checkpoint of `fromMessageId` and the checkpoint of
 * `toMessageId`, or, when that is `'worktree'` (`WORKTREE`), the worktree as it is now (measured
 * without touching index or HEAD). It
 * compares trees, so edits made by any command count, and a file changed then restored within
 * the turn does not. Renames show as a deletion and an addition.
 */
export async function turnDiff(
  sandbox: Sandbox,
  fromMessageId: string,
  toMessageId: string,
  options: TurnDiffOptions = {},
): Promise<TurnDiff> {
  const from = shellQuote(`${turnRef(fromMessageId)}^{commit}`);
  const max = options.maxFiles ?? 200;
  const target =
    toMessageId === WORKTREE
      ? `${WORKTREE_TREE_SCRIPT}\nto=$tree`
      : `to=$(git rev-parse --verify ${shellQuote(`${turnRef(toMessageId)}^{tree}`)})`;
  const script = `from=$(git rev-parse --verify ${from})
${target}
out=$(mktemp)
git diff-tree -r --no-renames --no-commit-id --name-status -z "$from" "$to" > "$out"
echo $(( $(tr -cd '\\0' < "$out" | wc -c) / 2 ))
head -z -n ${2 * max} "$out" | base64 -w 0
rm -f "$out"`;
  const output = await runGitScript(sandbox, options, script, `diff of turn ${fromMessageId}`);
  const [count = '', encoded = ''] = output.trim().split('\n');
  const totalFiles = Number(count);
  const files = parseNameStatus(Buffer.from(encoded.trim(), 'base64'));
  return { files, truncated: totalFiles > files.length, totalFiles };
}
