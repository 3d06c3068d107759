import type {
  IssueDetails,
  PullRequestDetails,
  ScmChangedFile,
  ScmComment,
} from '../ports/scm.port.js';
import { quotedName, wrapUntrusted } from './untrusted-content.js';

/**
 * How pull requests, issues and their comments read to a model. The facts the host states
 * (numbers, branches, commits, states) are plain, with the names people chose (a branch, a
 * path) quoted when they are more than a name ({@link quotedName}); everything a person wrote
 * (titles, bodies, comments, patches) is wrapped as untrusted content with its author.
 */

const SOURCE = 'github';

function authored(text: string, author: string | null, extra: Record<string, string> = {}) {
  return wrapUntrusted(text, { source: SOURCE, ...(author ? { author } : {}), ...extra });
}

/** Where a pull request's head lives, as a phrase. */
function headOf(pull: PullRequestDetails): string {
  const where = pull.head.repository
    ? `${pull.head.repository.owner}/${pull.head.repository.name}`
    : 'a deleted fork';
  return `${quotedName(pull.head.ref)} at ${pull.head.sha.slice(0, 12)} (in ${where})`;
}

export function renderPullRequest(pull: PullRequestDetails): string {
  const size =
    pull.changedFiles === undefined
      ? ''
      : ` | ${pull.changedFiles} files changed, +${pull.additions ?? 0} -${pull.deletions ?? 0}`;
  const facts =
    `Pull request #${pull.number} (${pull.draft ? 'draft, ' : ''}${pull.state}) ${pull.url}\n` +
    `head: ${headOf(pull)} | base: ${pull.base.ref}${size}`;
  const text = `# ${pull.title}\n\n${pull.body}`;
  return `${facts}\n${authored(text, pull.author, { id: `pull/${pull.number}` })}`;
}

export function renderScmIssue(issue: IssueDetails): string {
  const labels = issue.labels.length > 0 ? ` | labels: ${issue.labels.join(', ')}` : '';
  const kind = issue.pullRequest ? 'Pull request' : 'Issue';
  const facts = `${kind} #${issue.number} (${issue.state}) ${issue.url}${labels}`;
  const text = `# ${issue.title}\n\n${issue.body}`;
  return `${facts}\n${authored(text, issue.author, { id: `issue/${issue.number}` })}`;
}

/** Comments oldest first, each wrapped with its author (and its place in the diff). */
export function renderScmComments(comments: readonly ScmComment[], what: string): string {
  if (comments.length === 0) return `No ${what}.`;
  return comments
    .map((comment) =>
      authored(comment.body, comment.author, {
        id: String(comment.id),
        ...(comment.at ? { at: comment.at } : {}),
        ...(comment.path ? { path: comment.path } : {}),
        ...(comment.line ? { line: String(comment.line) } : {}),
        ...(comment.inReplyTo ? { in_reply_to: String(comment.inReplyTo) } : {}),
        ...(comment.bot ? { bot: 'true' } : {}),
      }),
    )
    .join('\n');
}

/** The diff stat, then each file's patch (cut at `maxPatchChars` in all). */
export function renderChangedFiles(
  files: readonly ScmChangedFile[],
  maxPatchChars: number,
): string {
  if (files.length === 0) return 'No changed files.';
  const stat = files
    .map((f) => `${f.status.padEnd(8)} +${f.additions} -${f.deletions}  ${quotedName(f.path)}`)
    .join('\n');
  let budget = maxPatchChars;
  const patches: string[] = [];
  for (const file of files) {
    if (!file.patch) continue;
    if (budget <= 0) {
      patches.push(`[patches of the remaining files left out: read them in the sandbox]`);
      break;
    }
    const patch = file.patch.length > budget ? `${file.patch.slice(0, budget)}\n[cut]` : file.patch;
    budget -= patch.length;
    patches.push(`--- ${quotedName(file.path)}\n${patch}`);
  }
  const body = patches.length > 0 ? `\n${authored(patches.join('\n'), null)}` : '';
  return `${stat}${body}`;
}
