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
 * A run whose push GitHub refused because Caravel's App may not change workflow files (the
 * runner's summary starts `The changes are not in a pull request (workflow_permission):`, then
 * the broker's words, which name the files): what happened and the two ways on, in place of the
 * last known state.
 */
function workflowPermissionText(exitStatus: string, summary: string): string {
  const files = /workflow files \(([^)\n]+)\)/.exec(summary)?.[1];
  return [
    "Caravel wasn't able to finish this task: GitHub refused to take its changes, because they " +
      "change workflow files and Caravel's GitHub App is not allowed to change workflows " +
      `(${exitStatus}).`,
    "The changes it made are kept in the thread's sandbox.",
    ...(files ? [`Workflow files changed: ${files}`] : []),
    'There are two ways on:',
    '- An admin of the GitHub App gives it the "Workflows: Read and write" permission (on ' +
      "GitHub: the App's settings, Permissions & events, Repository permissions; then accept " +
      'the new permission on the installation), then replies here to publish the kept changes. ' +
      'A new App can be registered with it: `caravel github-app manifest --workflows`.',
    '- Or reply here asking for the change without touching `.github/workflows/`.',
  ].join('\n');
}

/** The coded reasons of `submitted (exit_unpublished)` a reply of its own explains. */
const UNPUBLISHED_TEXTS: Readonly<Record<string, (exitStatus: string, summary: string) => string>> =
  { workflow_permission: workflowPermissionText };

/**
 * The reply a failed run gets in its source channel (deterministic: replies dedupe on text): why
 * it stopped, whether changes it made are waiting in the thread's sandbox (`submitted (<reason>)`:
 * they were autosubmitted), and its last known state. Changes that never reached their pull
 * request for a coded reason with a text of its own ({@link UNPUBLISHED_TEXTS}) get that text.
 */
export function failureText(exitStatus: string, summary: string): string {
  const unpublished = /^The changes are not in a pull request \(([a-z_]+)\):/.exec(summary.trim());
  const special = unpublished && UNPUBLISHED_TEXTS[unpublished[1] ?? ''];
  if (exitStatus === 'submitted (exit_unpublished)' && special) return special(exitStatus, summary);
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
