import { Badge, Table } from '@mantine/core';
import type { Thread } from './api.js';
import { FilterForm, QuerySelect, QueryText } from './filters.js';
import { useApi } from './use-api.js';
import { AsyncTable, counted, Page, when } from './ui.js';

const SOURCES = ['', 'github', 'slack', 'linear', 'jira', 'confluence', 'synthetic'];
const FILTERS = ['source', 'repo', 'person', 'status', 'since'] as const;

/** The API query for the URL's filters (a date becomes the start of that day, UTC). */
function apiQuery(query: URLSearchParams): string {
  const out = new URLSearchParams({ limit: '100' });
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value)
      out.set(name, name === 'since' ? new Date(`${value}T00:00:00Z`).toISOString() : value);
  }
  return out.toString();
}

export function repositoryOf(thread: Thread, none = '—'): string {
  return thread.repositoryOwner ? `${thread.repositoryOwner}/${thread.repositoryName ?? ''}` : none;
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge className={`status status-${status}`} variant="default">
      {status}
    </Badge>
  );
}

function ThreadRow({ thread }: { thread: Thread }) {
  return (
    <Table.Tr>
      <Table.Td>
        <a href={`#/threads/${thread.id}`}>{thread.title || thread.id}</a>
      </Table.Td>
      <Table.Td>{thread.source}</Table.Td>
      <Table.Td>{repositoryOf(thread)}</Table.Td>
      <Table.Td>
        <StatusBadge status={thread.status} />
      </Table.Td>
      <Table.Td>{when(thread.updatedAt)}</Table.Td>
    </Table.Tr>
  );
}

/** Threads, newest first, filtered by the URL's filters. */
export function ThreadsPage({ query }: { query: URLSearchParams }) {
  const search = apiQuery(query);
  const threads = useApi<Thread[]>(`/api/threads?${search}`);
  return (
    <Page title="Threads">
      <FilterForm key={search} page="threads" label="filter threads" names={FILTERS}>
        <QuerySelect query={query} name="source" label="Source" options={SOURCES} />
        <QueryText query={query} name="repo" label="Repository" placeholder="owner/name" />
        <QueryText query={query} name="person" label="Person" placeholder="github:octocat" />
        <QuerySelect query={query} name="status" label="Status" options={['', 'idle', 'running']} />
        <QueryText query={query} name="since" label="Updated since" type="date" />
      </FilterForm>
      <AsyncTable
        loaded={threads}
        loading="Loading threads…"
        empty="No thread matches."
        className="threads"
        caption={(rows) => counted(rows.length, 'thread')}
        columns={['Thread', 'Source', 'Repository', 'Status', 'Updated']}
        row={(thread) => <ThreadRow key={thread.id} thread={thread} />}
      />
    </Page>
  );
}
