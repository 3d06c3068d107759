import type { RunUnpublished } from '@caravel/contracts';

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

/** Files a reply names at most; more are counted. */
const SHOWN_FILES = 5;

/** Characters of one file name a reply shows at most. */
const SHOWN_FILE_CHARS = 100;

/**
 * A file name as a reply shows it: in code, each character a file name seldom has (and Markdown,
 * Slack or a mention could read: backticks, `<`, `*`, `@`, newlines, ...) shown as `?`, and cut
 * at {@link SHOWN_FILE_CHARS}. The name comes from the repository, which anyone may fill.
 */
function shownFile(name: string): string {
  const plain = name.replace(/[^A-Za-z0-9._/+ -]/g, '?');
  const cut = plain.length > SHOWN_FILE_CHARS ? `${plain.slice(0, SHOWN_FILE_CHARS - 1)}…` : plain;
  return `\`${cut}\``;
}

/** `files` as a reply lists them: the first {@link SHOWN_FILES}, then how many more. */
function shownFiles(files: readonly string[]): string {
  const shown = files.slice(0, SHOWN_FILES).map(shownFile).join(', ');
  const more = files.length - SHOWN_FILES;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/**
 * A run whose push GitHub refused because Caravel's App may not change workflow files (the
 * runner's `unpublished`, taken from the broker's coded refusal): what happened, which files,
 * that the commits must be rewritten to leave them out, and the two ways on, in place of the last
 * known state.
 */
function workflowPermissionText(exitStatus: string, unpublished: RunUnpublished): string {
  return [
    "Caravel wasn't able to finish this task: GitHub refused to take its changes, because they " +
      "change workflow files and Caravel's GitHub App is not allowed to change workflows " +
      `(${exitStatus}).`,
    "The changes it made are kept in the thread's sandbox, in commits that were not pushed.",
    ...(unpublished.files.length > 0
      ? [`Workflow files changed: ${shownFiles(unpublished.files)}`]
      : []),
    'There are two ways on:',
    '- An admin of the GitHub App gives it the "Workflows: Read and write" permission (on ' +
      "GitHub: the App's settings, Permissions & events, Repository permissions; then accept " +
      'the new permission on the installation; see "The GitHub App" in Caravel\'s ' +
      'docs/deployment.md), then replies here to publish the kept changes. A new App can be ' +
      'registered with it: `caravel github-app manifest --workflows`.',
    '- Or reply here asking for the change without touching `.github/workflows/`. The agent ' +
      'must then rewrite its unpushed commits so that none of them changes a workflow file: ' +
      'GitHub checks every commit pushed, so changing the files back in a new commit is not ' +
      'enough.',
  ].join('\n');
}

/** The coded reasons of `submitted (exit_unpublished)` a reply of its own explains. */
const UNPUBLISHED_TEXTS: Readonly<
  Record<string, (exitStatus: string, unpublished: RunUnpublished) => string>
> = { workflow_permission: workflowPermissionText };

/**
 * The reply a failed run gets in its source channel (deterministic: replies dedupe on text): why
 * it stopped, whether changes it made are waiting in the thread's sandbox (`submitted (<reason>)`:
 * they were autosubmitted), and its last known state. Changes that never reached their pull
 * request for a coded reason (`unpublished`, from the runner's `evt.run.finished`) with a text of
 * its own ({@link UNPUBLISHED_TEXTS}) get that text.
 */
export function failureText(
  exitStatus: string,
  summary: string,
  unpublished?: RunUnpublished,
): string {
  const special = unpublished && UNPUBLISHED_TEXTS[unpublished.reason];
  if (exitStatus === 'submitted (exit_unpublished)' && unpublished && special) {
    return special(exitStatus, unpublished);
  }
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
