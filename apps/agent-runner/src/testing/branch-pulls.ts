import type { BranchPullRequest } from '@caravel/integrations';

/** The head of {@link MERGED_PULL} when it was merged. */
export const MERGED_HEAD = 'f'.repeat(40);

/** A thread branch's pull request #4, merged at {@link MERGED_HEAD}. */
export const MERGED_PULL: BranchPullRequest = {
  number: 4,
  url: 'https://github.example/acme/widgets/pull/4',
  draft: true,
  state: 'merged',
  headSha: MERGED_HEAD,
};
