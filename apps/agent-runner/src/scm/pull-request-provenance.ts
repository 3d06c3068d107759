import type { EnvelopeOf, StartRunV1, TriggerSource } from '@caravel/contracts';
import type { PullRequestDraft, PullRequestRef, PullRequestText, ScmPort } from '@caravel/tools';
import { ForwardingScm } from './forwarding.scm.js';
import { issueNumberOf, pullRequestNumberOf } from './run-subject.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/** Where Caravel's own part of a pull request's body starts: everything after it is rewritten. */
export const PROVENANCE_MARKER = '<!-- caravel:provenance -->';

/** How each source is named where a person asked from it (none for Caravel's own triggers). */
const SOURCE_NAMES: Readonly<Record<TriggerSource, string | null>> = {
  github: 'GitHub',
  slack: 'Slack',
  linear: 'Linear',
  jira: 'Jira',
  confluence: 'Confluence',
  synthetic: null,
};

/** Text from a source as inline code: it can neither mention nor link (no backticks inside). */
function inlineCode(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\s+/g, ' ').slice(0, 80)}\``;
}

/**
 * Who asked for the run and where, as a pull request's readers need it: a GitHub login as a
 * mention (they hear of the pull request), the issue or pull request asked on as a reference
 * (GitHub links it both ways); a person of another source by name, as inline code (a Slack name
 * like `@acme/security` must not mention a GitHub team), and the run's id.
 */
export function provenanceLine(run: StartRun): string {
  const runRef = `Caravel run ${inlineCode(run.runId.slice(0, 8))}`;
  const person = run.requestedBy.displayName ?? run.requestedBy.externalId;
  if (run.source === 'github') {
    const on = pullRequestNumberOf(run) ?? issueNumberOf(run);
    const login = run.requestedBy.externalId.replace(/[^A-Za-z0-9-]/g, '');
    return `Requested by @${login}${on === undefined ? '' : ` on #${on}`} · ${runRef}`;
  }
  const where = run.source ? SOURCE_NAMES[run.source] : undefined;
  return `Requested by ${inlineCode(person)}${where ? ` in ${where}` : ''} · ${runRef}`;
}

/** `body` with Caravel's part (after {@link PROVENANCE_MARKER}) replaced by `line`. */
export function withProvenance(body: string, line: string): string {
  const at = body.indexOf(PROVENANCE_MARKER);
  const own = (at === -1 ? body : body.slice(0, at)).trimEnd();
  const block = `${PROVENANCE_MARKER}\n---\n${line}`;
  return own ? `${own}\n\n${block}` : block;
}

/**
 * The SCM of a run that opens or updates its own pull request: each body the agent writes ends
 * with who asked for the work and where ({@link provenanceLine}), written again on each update,
 * so the people reviewing a pull request from Caravel know whose request it answers.
 */
export class ProvenanceScm extends ForwardingScm {
  constructor(
    scm: ScmPort,
    private readonly run: StartRun,
  ) {
    super(scm);
  }

  override openPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    return this.inner.openPullRequest({ ...request, body: this.noted(request.body) });
  }

  override updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef> {
    return this.inner.updatePullRequest(number, { ...request, body: this.noted(request.body) });
  }

  private noted(body: string): string {
    return withProvenance(body, provenanceLine(this.run));
  }
}
