/** Which of a sandbox's limits a command ran into. */
export type LimitHit =
  | { readonly kind: 'processes'; readonly limit: number; readonly refusals: number }
  | { readonly kind: 'memory'; readonly limitBytes: number; readonly kills: number }
  | {
      readonly kind: 'workspace';
      readonly limitBytes: number;
      readonly usedBytes: number;
      readonly stopped: boolean;
    }
  | { readonly kind: 'tmp'; readonly limitBytes: number };

/** `1.5 GiB`, `64 MiB`, `512 KiB`, `10 bytes`. */
export function formatBytes(bytes: number): string {
  const units = ['GiB', 'MiB', 'KiB'] as const;
  for (const [index, unit] of units.entries()) {
    const size = 1024 ** (units.length - index);
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 'es'}`;
}

/**
 * The sentence the agent reads, at the end of a command's output, when a limit was hit. Each
 * names the limit, its value and what to do next, so the next step can be a different one.
 */
export function limitNote(hit: LimitHit): string {
  switch (hit.kind) {
    case 'processes':
      return (
        `[caravel: the sandbox's process limit (${hit.limit} processes and threads) was reached ` +
        `and ${hit.refusals === 1 ? 'a new process was' : `${hit.refusals} new processes were`} ` +
        'refused; the command and every background process were stopped. Run fewer processes ' +
        'at once (e.g. fewer parallel jobs).]'
      );
    case 'memory':
      return (
        `[caravel: the sandbox's memory limit (${formatBytes(hit.limitBytes)}, /tmp included) ` +
        `was reached and the kernel killed ${plural(hit.kills, 'process')}. Use less memory (smaller inputs, fewer parallel ` +
        'jobs) or free /tmp.]'
      );
    case 'workspace':
      return (
        `[caravel: the workspace and home use ${formatBytes(hit.usedBytes)} of disk, over the ` +
        `sandbox's ${formatBytes(hit.limitBytes)} limit; ` +
        `${hit.stopped ? 'the command and every background process were stopped' : 'nothing was stopped'}. ` +
        'Delete files you do not need (build outputs, caches, downloads) before going on.]'
      );
    case 'tmp':
      return (
        `[caravel: /tmp is full (its limit is ${formatBytes(hit.limitBytes)}); writes there fail ` +
        'with "No space left on device". Delete files under /tmp, or write large files to the ' +
        'workspace instead.]'
      );
  }
}
