import {
  CHECK_RUN_CONCLUSIONS,
  CHECK_RUN_STATUSES,
  COMMIT_STATUS_STATES,
  githubCommitThreadId,
  githubThreadId,
  type CiCheck,
  type CiCheckReportedV1,
  type DataOf,
} from '@caravel/contracts';
import type { z } from 'zod';
import type { ciPayload } from './github-payload.schemas.js';
import type { CiDecision, RecordDecision } from './webhook-decision.js';

type CiPayload = z.output<typeof ciPayload>;
type CiEvent = DataOf<typeof CiCheckReportedV1>['event'];
type CiRun = NonNullable<CiPayload['check_run']>;

const SHA = /^[0-9a-fA-F]{7,64}$/;
const CHECK_STATUSES = new Set<string>(CHECK_RUN_STATUSES);
const CONCLUSIONS = new Set<string>(CHECK_RUN_CONCLUSIONS);
const STATUS_STATES = new Set<string>(COMMIT_STATUS_STATES);

type CheckRun = Extract<CiCheck, { kind: 'check_run' }>;
type CommitStatus = Extract<CiCheck, { kind: 'status' }>;

/** A link kept only when it is one (a CI may send anything in these fields). */
function link(url: string | null | undefined): { url?: string } {
  return url && /^https?:\/\//.test(url) && url.length <= 2_000 ? { url } : {};
}

/**
 * A run's state as the check summary reads it. A state GitHub adds later is not dropped: an
 * unknown status waits (pending), an unknown conclusion goes to the owner (`stale`).
 */
function checkRunOf(run: CiRun, name: string): CheckRun {
  const status = (
    run.status && CHECK_STATUSES.has(run.status) ? run.status : 'pending'
  ) as CheckRun['status'];
  const conclusion =
    status !== 'completed' || !run.conclusion
      ? null
      : ((CONCLUSIONS.has(run.conclusion) ? run.conclusion : 'stale') as CheckRun['conclusion']);
  return {
    kind: 'check_run',
    name: name.slice(0, 300),
    status,
    conclusion,
    ...link(run.details_url ?? run.html_url),
  };
}

/** The check a CI delivery reports, or why it reports none a watch could use. */
function checkOf(event: CiEvent, p: CiPayload): CiCheck | string {
  if (event === 'status') {
    if (!p.context || !p.state || !STATUS_STATES.has(p.state)) return 'a status without context';
    const state = p.state as CommitStatus['state'];
    return { kind: 'status', name: p.context.slice(0, 300), state, ...link(p.target_url) };
  }
  const run = p[event];
  const name = event === 'check_suite' ? run?.app?.name : run?.name;
  if (!run || !name) return `a ${event} without a name`;
  return checkRunOf(run, name);
}

/**
 * A CI delivery: a `ci` decision (published as `ci.check_reported`) when it names a check on a
 * commit, else recorded only (202, as before) with the reason logged by the caller's answer.
 */
export function mapGithubCi(
  event: CiEvent,
  deliveryId: string,
  p: CiPayload,
  sha: string,
): CiDecision | RecordDecision {
  const target = { owner: p.repository.owner.login, repo: p.repository.name };
  const runs = event === 'status' ? undefined : p[event];
  const pulls = runs?.pull_requests ?? [];
  const first = pulls[0]?.number;
  const recorded: RecordDecision = {
    kind: 'record',
    source: 'github',
    event: p.action ? `${event}.${p.action}` : event,
    deliveryId,
    semanticKey: null,
    threadId:
      first === undefined
        ? githubCommitThreadId({ ...target, sha })
        : githubThreadId({ ...target, number: first }),
  };
  const check = checkOf(event, p);
  if (typeof check === 'string' || !SHA.test(sha)) return recorded;
  const web = p.repository.html_url ?? `https://github.com/${target.owner}/${target.repo}`;
  return {
    ...recorded,
    source: 'github',
    semanticKey: null,
    kind: 'ci',
    ciEvent: event,
    repository: { owner: target.owner, name: target.repo },
    headSha: sha.toLowerCase(),
    pullRequests: pulls
      .filter((pull) => pull.number > 0)
      .slice(0, 100)
      .map((pull) => ({ number: pull.number, url: `${web}/pull/${pull.number}` })),
    check,
  };
}
