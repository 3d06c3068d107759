/** Why a run stopped short, by its exit reason, as the person who asked reads it. */
const STOPPED_BECAUSE: Readonly<Record<string, string>> = {
  exit_cost: 'it reached its limit of model calls or its cost budget',
  exit_context: "its conversation outgrew the model's context window",
  exit_format: 'the model kept giving answers Caravel could not act on',
  exit_command_timeout: 'its commands kept timing out',
  exit_total_execution_time: 'it reached its time limit',
  exit_environment_error: 'its sandbox failed',
  exit_api: "the model's API kept failing",
  exit_error: 'an unexpected error stopped it',
  exit_stuck: 'it kept repeating the same step',
  exit_forfeit: 'it gave up',
  exit_command: 'it stopped without submitting',
  exit_unpublished: 'its changes could not be put in a pull request',
  exit_no_heartbeat: 'its runner stopped responding',
};

/**
 * The reply a failed run gets in its source channel (deterministic: replies dedupe on text): why
 * it stopped, whether changes it made are waiting in the thread's sandbox (`submitted (<reason>)`:
 * they were autosubmitted), and its last known state.
 */
export function failureText(exitStatus: string, summary: string): string {
  const first = summary.trim().split('\n')[0]?.slice(0, 300) ?? '';
  // SWE-agent's bare "Exited (autosubmitted)" says nothing the lines above do not.
  const detail = /^Exited( \(autosubmitted\))?$/.test(first) ? '' : first;
  const reason = /exit_[a-z_]+/.exec(exitStatus)?.[0];
  const because = reason ? STOPPED_BECAUSE[reason] : undefined;
  return [
    `Caravel wasn't able to finish this task${because ? `: ${because}` : ''} (${exitStatus}).`,
    ...(exitStatus.startsWith('submitted (')
      ? ["The changes it made are kept in the thread's sandbox."]
      : []),
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
