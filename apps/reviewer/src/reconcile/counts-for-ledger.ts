import type { ListedReviewComment } from '@caravel/integrations';
import { isOwnPeople } from '@caravel/tools';

/**
 * Whether a review comment may change the ledger (file a finding, report one, mark one for
 * reassessment), and so the verdict: Caravel's own (its login), an installed review bot's (GitHub
 * says `Bot` only for an App, and only the repository's owner installs Apps on it, as ingress's
 * public-repository gate reasons), or one of the repository's own people's (`isOwnPeople`:
 * GitHub's `OWNER`, `MEMBER`, `COLLABORATOR`). Anyone else can comment on a public repository's
 * pull request, its author included: their words are shown to the reviewer as untrusted text,
 * never taken in.
 */
export function countsForLedger(comment: ListedReviewComment, botLogin: string): boolean {
  if (comment.login?.toLowerCase() === botLogin.toLowerCase()) return true;
  return comment.userType === 'Bot' || isOwnPeople(comment.association ?? undefined);
}
