import { Button, NativeSelect, Table, Textarea } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import type {
  reviewStyleDetailResponse,
  reviewStyleHistoryResponse,
  reviewStyleSummaryResponse,
} from '../../api/review-style-schemas.js';
import { api } from '../api.js';
import { formText } from '../filters.js';
import { useApi } from '../use-api.js';
import { Async, AsyncTable, DataTable, Section, when } from '../ui.js';
import { Field, useFormStatus } from './fields.js';
import { lineDiff } from './line-diff.js';

type StyleSummary = z.output<typeof reviewStyleSummaryResponse>;
type StyleHistory = z.output<typeof reviewStyleHistoryResponse>;
type StyleDetail = z.output<typeof reviewStyleDetailResponse>;

const stylePath = (repository: string) =>
  `/api/review-styles/${repository.split('/').map(encodeURIComponent).join('/')}`;

/** Admins: ask the analyzer to learn a repository's style from its merged pull requests. */
function BootstrapForm() {
  const { status, say, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const repository = formText(new FormData(event.currentTarget), 'repository').trim();
    api<{ threadId: string }>(`${stylePath(repository)}/analyze`, { method: 'POST' }).then(
      (asked) => say(`The analyzer is learning ${repository}'s style (thread ${asked.threadId}).`),
      fail,
    );
  };
  return (
    <form aria-label="learn a review style" onSubmit={submit}>
      <Field name="repository" label="Repository to learn" placeholder="owner/name" />
      <Button type="submit">Learn its style</Button>
      {status}
    </form>
  );
}

/** Admins: an edited prompt, recorded as a proposal the reviewer eval gate decides. */
function EditForm({ repository, prompt }: { repository: string; prompt: string }) {
  const { status, say, fail } = useFormStatus();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const note = formText(data, 'note').trim();
    const body = {
      prompt: formText(data, 'prompt'),
      suite: formText(data, 'suite').trim(),
      ...(note ? { note } : {}),
    };
    api<{ id: string }>(`${stylePath(repository)}/proposals`, { method: 'POST', body }).then(
      (proposal) =>
        say(
          `Proposed (pending): caravel eval gate-style --proposal ${proposal.id} --set ` +
            `<the ${body.suite} set> decides it; the style in force is unchanged until then.`,
        ),
      fail,
    );
  };
  return (
    <form aria-label="propose an edit" onSubmit={submit}>
      <Textarea name="prompt" label="Edited prompt" defaultValue={prompt} autosize minRows={6} />
      <Field name="suite" label="Labelled review set to measure it on" placeholder="sample" />
      <Field name="note" label="Note" />
      <Button type="submit">Propose the edit</Button>
      {status}
    </form>
  );
}

/** A version's prompt, as text; with `against`, the lines that changed from that version. */
function PromptView({ shown, against }: { shown: StyleDetail; against: StyleDetail | null }) {
  if (!against)
    return (
      <>
        <p className="note">{`Version ${shown.version}'s prompt:`}</p>
        <pre className="wrap style-prompt">{shown.prompt}</pre>
      </>
    );
  const look = {
    same: { mark: ' ', className: 'diff-line' },
    removed: { mark: '-', className: 'diff-line diff-del' },
    added: { mark: '+', className: 'diff-line diff-add' },
  } as const;
  return (
    <>
      <p className="note">{`Version ${shown.version} against version ${against.version}:`}</p>
      <pre className="diff style-diff">
        {lineDiff(against.prompt, shown.prompt).map((line, index) => (
          <span key={index} className={look[line.kind].className}>
            <span className="diff-mark">{look[line.kind].mark}</span>
            {line.text}
          </span>
        ))}
      </pre>
    </>
  );
}

/** One repository's versions, its proposals with their verdicts, a prompt or a comparison. */
function StyleHistoryView(props: { history: StyleHistory; admin: boolean }) {
  const { history } = props;
  const newest = history.versions[0]?.version ?? 1;
  const [shown, setShown] = useState(newest);
  const [against, setAgainst] = useState(0);
  const path = stylePath(history.repository);
  const prompt = useApi<StyleDetail>(`${path}/versions/${shown}`);
  const other = useApi<StyleDetail>(against ? `${path}/versions/${against}` : null);
  const inForce = useApi<StyleDetail>(`${path}/versions/${newest}`);
  const options = history.versions.map((v) => ({
    value: String(v.version),
    label: `v${v.version} (${v.mode})`,
  }));
  return (
    <>
      <DataTable
        caption={`${history.repository}: versions, the newest first`}
        columns={['Version', 'Mode', 'Model', 'Edited by', 'Saved', 'Summary']}
      >
        {history.versions.map((v) => (
          <Table.Tr key={v.version}>
            <Table.Td>{`v${v.version}`}</Table.Td>
            <Table.Td>{v.mode}</Table.Td>
            <Table.Td>{v.model}</Table.Td>
            <Table.Td>{v.editedBy ?? '—'}</Table.Td>
            <Table.Td>{when(v.createdAt)}</Table.Td>
            <Table.Td>{v.summary}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <NativeSelect
        label="Show version"
        data={options}
        value={String(shown)}
        onChange={(event) => setShown(Number(event.currentTarget.value))}
      />
      <NativeSelect
        label="Compare with"
        data={[{ value: '0', label: 'nothing' }, ...options]}
        value={String(against)}
        onChange={(event) => setAgainst(Number(event.currentTarget.value))}
      />
      <Async loaded={prompt}>
        {(detail) =>
          against ? (
            <Async loaded={other}>{(base) => <PromptView shown={detail} against={base} />}</Async>
          ) : (
            <PromptView shown={detail} against={null} />
          )
        }
      </Async>
      {history.proposals.length === 0 ? (
        <p>No edit proposed yet.</p>
      ) : (
        <DataTable
          caption="Proposed edits and the gate's verdicts"
          columns={['Proposal', 'Status', 'By', 'Proposed', 'Version', 'Reason']}
        >
          {history.proposals.map((p) => (
            <Table.Tr key={p.id}>
              <Table.Td>{p.id.slice(0, 8)}</Table.Td>
              <Table.Td>{p.status}</Table.Td>
              <Table.Td>{p.proposedBy}</Table.Td>
              <Table.Td>{when(p.createdAt)}</Table.Td>
              <Table.Td>{p.styleVersion ? `v${p.styleVersion}` : '—'}</Table.Td>
              <Table.Td>{p.reason ?? 'not measured yet'}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
      {props.admin && (
        <Async loaded={inForce}>
          {(current) => <EditForm repository={history.repository} prompt={current.prompt} />}
        </Async>
      )}
    </>
  );
}

/**
 * Review styles: the repositories whose style the analyzer learned, one's versions (a prompt, or
 * two compared line by line), its edits and their verdicts; admins ask for a bootstrap and
 * propose edits, which go live only when the reviewer eval gate accepts them.
 */
export function ReviewStylesSection({ admin }: { admin: boolean }) {
  const rows = useApi<StyleSummary[]>('/api/review-styles');
  const [open, setOpen] = useState<string | null>(null);
  const history = useApi<StyleHistory>(open && stylePath(open));
  return (
    <Section
      id="review-styles-title"
      title="Review styles"
      note="What the reviewer is told about each repository's review habits, learned from its merged pull requests."
    >
      <AsyncTable
        loaded={rows}
        empty="No repository has a learned style yet."
        columns={['Repository', 'In force', 'Saved', 'Versions', '']}
        row={(s) => (
          <Table.Tr key={s.repository}>
            <Table.Td>{s.repository}</Table.Td>
            <Table.Td>{`v${s.version} (${s.mode}${s.editedBy ? `, ${s.editedBy}` : ''})`}</Table.Td>
            <Table.Td>{when(s.createdAt)}</Table.Td>
            <Table.Td>{s.versions}</Table.Td>
            <Table.Td>
              <Button
                variant="subtle"
                size="compact-sm"
                aria-label={`open ${s.repository}'s style`}
                onClick={() => setOpen(s.repository)}
              >
                Open
              </Button>
            </Table.Td>
          </Table.Tr>
        )}
      />
      {open && (
        <Async loaded={history}>
          {(loaded) => <StyleHistoryView key={open} history={loaded} admin={admin} />}
        </Async>
      )}
      {admin && <BootstrapForm />}
    </Section>
  );
}
