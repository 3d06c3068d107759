import { shellQuote, type Sandbox } from '@caravel/sandbox';

/** Where a patch is staged in a sandbox, for the length of one command. */
export const PATCH_FILE = '.caravel-apply.patch';

/** A file of a patch that `git apply` refused, with its reason (`patch does not apply`, …). */
export interface UnappliedFile {
  path: string;
  reason: string;
}

/** How applying a patch went: all of it, or none of it and why (`git apply` is atomic). */
export type PatchApplied =
  { applied: true } | { applied: false; output: string; files: UnappliedFile[] };

/**
 * Applies `patch` (a run's diff: `ToolSandboxAdapter.diff`, an attempt's submission) to the
 * sandbox's working tree with `git apply`, uncommitted: all of it or, when any file does not
 * apply, nothing, with the files that did not.
 */
export async function applyPatch(sandbox: Sandbox, patch: string): Promise<PatchApplied> {
  await sandbox.writeFile(PATCH_FILE, patch);
  const file = shellQuote(PATCH_FILE);
  const result = await sandbox.exec(
    `git apply --whitespace=nowarn ${file}; status=$?; rm -f ${file}; exit $status`,
    { timeoutMs: 120_000 },
  );
  if (result.exitCode === 0) return { applied: true };
  const output = result.output.trim();
  return { applied: false, output, files: unappliedFiles(output) };
}

/**
 * The files `git apply` names as refused (`error: <path>: <reason>`), once each; its
 * `error: patch failed: <path>:<line>` lines only say where, and are left out.
 */
export function unappliedFiles(output: string): UnappliedFile[] {
  const files = new Map<string, string>();
  for (const line of output.split('\n')) {
    const refused = /^error: (?!patch failed: )(.+?): ([^:]+)$/.exec(line.trim());
    if (refused && !files.has(refused[1]!)) files.set(refused[1]!, refused[2]!);
  }
  return [...files].map(([path, reason]) => ({ path, reason }));
}
