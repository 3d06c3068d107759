import { Badge, Code, Table } from '@mantine/core';
import type { LedgerFinding, ReviewLedger } from '../api.js';
import { useApi } from '../use-api.js';
import { Async, counted, DataTable, Page } from '../ui.js';
import { StatusBadge } from '../threads.page.js';

export const short = (sha: string | null) => (sha ? sha.slice(0, 12) : '—');

function lines(finding: LedgerFinding): string {
  const { file, startLine, endLine } = finding.anchor;
  if (startLine === null) return file;
  return endLine !== null && endLine !== startLine
    ? `${file}:${startLine}-${endLine}`
    : `${file}:${startLine}`;
}

function FindingRow({ finding }: { finding: LedgerFinding }) {
  const status = finding.resolution ? `${finding.status} (${finding.resolution})` : finding.status;
  return (
    <Table.Tr id={finding.id}>
      <Table.Td>
        <Badge className={`severity severity-${finding.severity}`} variant="default">
          {finding.severity}
        </Badge>
      </Table.Td>
      <Table.Td>
        <details>
          <summary>{finding.title}</summary>
          <p>{finding.description}</p>
          {finding.suggestion && <pre className="wrap">{finding.suggestion}</pre>}
          <p className="note">{`${finding.category} · confidence ${finding.confidence}`}</p>
        </details>
      </Table.Td>
      <Table.Td>{`${finding.raisedBy.name} (${finding.raisedBy.kind})`}</Table.Td>
      <Table.Td>
        <StatusBadge status={status} />
      </Table.Td>
      <Table.Td>
        <Code>{lines(finding)}</Code>
        {finding.inDiff ? '' : ' (outside the diff)'}
      </Table.Td>
      <Table.Td>
        {finding.links.map((link, index) => (
          <a key={link} href={link} rel="noopener noreferrer">{`comment ${index + 1} `}</a>
        ))}
        {finding.links.length === 0 && '—'}
      </Table.Td>
    </Table.Tr>
  );
}

function verdictText(ledger: ReviewLedger): string {
  const { verdict } = ledger;
  if (!verdict) return 'No review published yet.';
  const reason = verdict.reason.replaceAll('_', ' ');
  return verdict.posted
    ? `Verdict: ${verdict.event} (${reason}).`
    : `Verdict: ${verdict.event} (${reason}), not posted.`;
}

function LedgerBody({ ledger }: { ledger: ReviewLedger }) {
  const c = ledger.counts;
  return (
    <div>
      <p className="verdict">{verdictText(ledger)}</p>
      <p>
        {`${c.open} open · ${c.resolved} resolved · ${c.dismissed} dismissed · head ${short(ledger.headSha)} · reviewed at ${short(ledger.lastReviewedSha)} · `}
        <a href={ledger.url} rel="noopener noreferrer">
          the pull request on GitHub
        </a>
        {' · '}
        <a href={`#/threads/${ledger.threadId}`}>the reviewer&apos;s thread</a>
      </p>
      {ledger.findings.length === 0 ? (
        <p>No finding on this pull request.</p>
      ) : (
        <DataTable
          className="findings"
          caption={counted(ledger.findings.length, 'finding')}
          columns={['Severity', 'Finding', 'Raised by', 'Status', 'Where', 'Links']}
        >
          {ledger.findings.map((finding) => (
            <FindingRow key={finding.id} finding={finding} />
          ))}
        </DataTable>
      )}
    </div>
  );
}

/** One pull request's ledger: every finding (Caravel's, people's, other bots'), and the verdict. */
export function LedgerPage(props: { owner: string; repo: string; number: string }) {
  const { owner, repo, number } = props;
  const path = [owner, repo, number].map(encodeURIComponent).join('/');
  const ledger = useApi<ReviewLedger>(`/api/reviews/${path}`);
  return (
    <Page
      title={`Review of ${owner}/${repo}#${number}`}
      back={<a href="#/reviews">← All reviews</a>}
    >
      <Async loaded={ledger} loading="Loading the ledger…">
        {(data) => <LedgerBody ledger={data} />}
      </Async>
    </Page>
  );
}
