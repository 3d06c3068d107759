/** The reply a failed run gets in its source channel (deterministic: replies dedupe on text). */
export function failureText(exitStatus: string, summary: string): string {
  const detail = summary.trim().split('\n')[0]?.slice(0, 300) ?? '';
  return [
    `Caravel wasn't able to finish this task (${exitStatus}).`,
    ...(detail ? [`Last known state: ${detail}`] : []),
    'Reply here to try again.',
  ].join('\n');
}

/** What a request that has to wait is told, once. */
export function queuedText(position: number): string {
  return `Caravel is busy: your request is queued (position ${position}). It starts as soon as a slot frees up.`;
}

/** What a stopped thread's channel is told, once per stopped run. */
export function stoppedText(): string {
  return 'Stopped. Caravel is no longer working on this; write here again to start new work.';
}
