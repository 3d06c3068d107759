import { Table, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiError } from './api.js';
import type { Loaded } from './use-api.js';

/** A failure as the person reads it: the API's code and message, never a stack. */
export function ErrorText({ error }: { error: unknown }) {
  const text =
    error instanceof ApiError ? `${error.code}: ${error.message}` : 'The dashboard did not answer.';
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

/** A page: its heading (focused when the route changes), after an optional way back. */
export function Page(props: { title: string; back?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby="page-title">
      {props.back && <p>{props.back}</p>}
      <Title order={1} id="page-title" tabIndex={-1}>
        {props.title}
      </Title>
      {props.children}
    </section>
  );
}

/** What a read shows in its live region: a loading line, the refusal, or `children` of its answer. */
export function Async<T>(props: {
  loaded: Loaded<T>;
  loading?: string;
  children: (data: T) => ReactNode;
}) {
  const { loaded } = props;
  return (
    <div aria-live="polite">
      {loaded.state === 'loading' && <p>{props.loading ?? 'Loading…'}</p>}
      {loaded.state === 'failed' && <ErrorText error={loaded.error} />}
      {loaded.state === 'done' && props.children(loaded.data)}
    </div>
  );
}

/** A table with a header row of column names, a caption when given, and the body's rows. */
export function DataTable(props: {
  className?: string;
  caption?: string;
  columns: string[];
  children: ReactNode;
}) {
  return (
    <Table className={props.className} striped highlightOnHover captionSide="top">
      {props.caption !== undefined && <Table.Caption>{props.caption}</Table.Caption>}
      <Table.Thead>
        <Table.Tr>
          {props.columns.map((name, index) => (
            <Table.Th key={index} scope="col">
              {name}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{props.children}</Table.Tbody>
    </Table>
  );
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/** `n thing(s)`: the count and the word, plural unless it is one. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const LINK = /https?:\/\/[^\s<>"')]+/g;

/** Text with its http(s) URLs as links (a pull request's, say); everything else stays text. */
export function Linkified({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    parts.push(text.slice(last, match.index));
    parts.push(
      <a key={match.index} href={match[0]} rel="noopener noreferrer">
        {match[0]}
      </a>,
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}

/** A read list in its live region: a table of its rows, or `empty` when it has none. */
export function AsyncTable<T>(props: {
  loaded: Loaded<T[]>;
  loading?: string;
  empty: string;
  className?: string;
  caption?: (rows: T[]) => string;
  columns: string[];
  row: (item: T) => ReactNode;
}) {
  return (
    <Async loaded={props.loaded} loading={props.loading}>
      {(rows) =>
        rows.length === 0 ? (
          <p>{props.empty}</p>
        ) : (
          <DataTable
            className={props.className}
            caption={props.caption?.(rows)}
            columns={props.columns}
          >
            {rows.map(props.row)}
          </DataTable>
        )
      }
    </Async>
  );
}

/** A titled part of a page (`<section>` named by its heading), with an optional note under it. */
export function Section(props: {
  id: string;
  title: string;
  order?: 2 | 3;
  note?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={props.id}>
      <Title order={props.order ?? 2} id={props.id}>
        {props.title}
      </Title>
      {props.note && <p className="note">{props.note}</p>}
      {props.children}
    </section>
  );
}
