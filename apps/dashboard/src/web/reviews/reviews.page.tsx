import { Table } from '@mantine/core';
import type { ReviewedPullRequest } from '../api.js';
import { FilterForm, QueryText } from '../filters.js';
import { useApi } from '../use-api.js';
import { AsyncTable, counted, Page, when } from '../ui.js';
import { LedgerPage, short } from './ledger.js';

function PullRequestRow({ review }: { review: ReviewedPullRequest }) {
  const { owner, repo, number } = review.pullRequest;
  return (
    <Table.Tr>
      <Table.Td>
        <a href={`#/reviews/${owner}/${repo}/${number}`}>{`${owner}/${repo}#${number}`}</a>
      </Table.Td>
      <Table.Td>{review.counts.open}</Table.Td>
      <Table.Td>{review.counts.resolved}</Table.Td>
      <Table.Td>{review.counts.dismissed}</Table.Td>
      <Table.Td>{short(review.lastReviewedSha)}</Table.Td>
      <Table.Td>{when(review.updatedAt)}</Table.Td>
      <Table.Td>
        <a href={review.url} rel="noopener noreferrer">
          on GitHub
        </a>
      </Table.Td>
    </Table.Tr>
  );
}

/** Reviewed pull requests, the most recently changed first, filtered by the URL's repository. */
function ReviewList({ query }: { query: URLSearchParams }) {
  const repo = query.get('repo') ?? '';
  const params = new URLSearchParams({ limit: '200', ...(repo ? { repo } : {}) });
  const reviews = useApi<ReviewedPullRequest[]>(`/api/reviews?${params.toString()}`);
  return (
    <Page title="Reviews">
      <FilterForm key={repo} page="reviews" label="filter reviews" names={['repo']}>
        <QueryText query={query} name="repo" label="Repository" placeholder="owner/name" />
      </FilterForm>
      <AsyncTable
        loaded={reviews}
        loading="Loading reviews…"
        empty="No reviewed pull request matches."
        className="reviews"
        caption={(rows) => counted(rows.length, 'reviewed pull request')}
        row={(review) => <PullRequestRow key={review.url} review={review} />}
        columns={[
          'Pull request',
          'Open',
          'Resolved',
          'Dismissed',
          'Reviewed at',
          'Changed',
          'Link',
        ]}
      />
    </Page>
  );
}

/** `#/reviews[?repo=owner/name]` (the list) or `#/reviews/<owner>/<repo>/<number>` (a ledger). */
export function ReviewsPage({ path, query }: { path: string[]; query: URLSearchParams }) {
  const [owner, repo, number] = path;
  return owner && repo && number ? (
    <LedgerPage owner={owner} repo={repo} number={number} />
  ) : (
    <ReviewList query={query} />
  );
}
