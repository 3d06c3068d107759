import { renderPullRequest } from '../channel/scm-render.js';
import { quotedName } from '../channel/untrusted-content.js';
import type { CaravelTool } from '../core/tool-definition.js';
import type { ToolOptions } from '../core/tool-options.js';
import { chatTools } from '../curated-tools.js';
import type { ReplyChannel } from '../ports/reply-channel.port.js';
import type { PullRequestDetails, ScmChangedFile } from '../ports/scm.port.js';
import { DIFF_FILE, diffPathOf } from './pull-request-diff.js';
import { FILES_DIR, FINDINGS_FILE, type PullRequestFiles } from './pull-request-files.js';

/**
 * `PULL_REQUEST.md`: the facts GitHub states, the author's title and body wrapped as untrusted
 * content (`renderPullRequest`), and the changed files with where to read each.
 */
export function pullRequestDescription(
  pull: PullRequestDetails,
  files: readonly ScmChangedFile[],
  hasFindings: boolean,
): string {
  const listed =
    pull.changedFiles !== undefined && pull.changedFiles > files.length
      ? `GitHub listed the first ${files.length} of its ${pull.changedFiles} changed files.`
      : `${files.length} changed files.`;
  const lines = files.map(
    (file) =>
      `- ${quotedName(file.path)} (${file.status}, +${file.additions} -${file.deletions}): ` +
      quotedName(diffPathOf(file.path)) +
      (file.status === 'removed' ? '' : `, ${quotedName(`${FILES_DIR}/${file.path}`)}`),
  );
  return [
    renderPullRequest(pull),
    '',
    `## Changed files`,
    listed,
    ...lines,
    '',
    `The whole diff: ${DIFF_FILE}.` +
      (hasFindings ? ` Open review findings on this pull request: ${FINDINGS_FILE}.` : ''),
  ].join('\n');
}

/**
 * The tools of the chat agent asked about a pull request: the chat agent's own set (read_file,
 * ls, glob, grep, reply_to_user and the control tools) over the pull request's read-only virtual
 * files. No write, shell, commit, push or pull-request tool is in it.
 */
export function pullRequestChatTools(
  ports: { files: PullRequestFiles; channel: ReplyChannel },
  options: Partial<ToolOptions> = {},
): CaravelTool[] {
  return chatTools({ sandbox: ports.files, channel: ports.channel }, options);
}
