import { ciCheck, type CiCheck } from '@caravel/contracts';
import type { CiWatchRow, CiWatchSave } from '@caravel/db';
import { checkVerdict } from './check-summary.js';
import type { CiWatchDecision, CiWatchState } from './ci-watch-policy.js';

/** The policy's state of a stored watch. */
export function policyStateOf(row: CiWatchRow): CiWatchState {
  return {
    headSha: row.headSha,
    fixRuns: row.fixRuns,
    limitAnnounced: row.limitAnnounced,
    handledKeys: row.handledKeys,
    rerunsAtHead: row.rerunsAtHead,
    green:
      row.greenFingerprint && row.greenSince
        ? { fingerprint: row.greenFingerprint, since: row.greenSince.getTime() }
        : null,
    announcedHead: row.announcedHead,
  };
}

/** What is stored after an evaluation: the policy's state, the checks seen, when to look again. */
export function savedStateOf(
  state: CiWatchState,
  seen: { checks: readonly CiCheck[]; mergeable: boolean | null },
  decision: CiWatchDecision,
): CiWatchSave {
  const retryAt =
    decision.action === 'skip' && decision.retryAt ? new Date(decision.retryAt) : null;
  return {
    headSha: state.headSha,
    checks: [...seen.checks],
    mergeable: seen.mergeable,
    fixRuns: state.fixRuns,
    limitAnnounced: state.limitAnnounced,
    handledKeys: [...state.handledKeys],
    rerunsAtHead: state.rerunsAtHead,
    greenFingerprint: state.green?.fingerprint ?? null,
    greenSince: state.green ? new Date(state.green.since) : null,
    announcedHead: state.announcedHead,
    retryAt,
  };
}

/** The stored checks that still read as checks (a row written by an older build may not). */
export function storedChecks(row: CiWatchRow): CiCheck[] {
  return row.checks.flatMap((check) => {
    const parsed = ciCheck.safeParse(check);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * The checks at `headSha` once `check` is counted: a new head starts its set afresh (the latest
 * delivery names the head, as GitHub sends a pull request's pushes in order); the same name
 * reported again replaces its earlier report.
 */
export function checksWith(row: CiWatchRow, headSha: string, check?: CiCheck): CiCheck[] {
  const current = row.headSha === headSha ? storedChecks(row) : [];
  if (!check) return current;
  return [...current.filter((c) => c.name !== check.name), check];
}

/**
 * True when `check` starts a rerun at this head: a check that had failed there starts again while
 * nothing else there runs (the agent reran it on the evidence of flakiness, or a person did).
 * "Re-run failed jobs" starts several at once: the first counts, the others join its rerun. A
 * redelivery of the same start is no second rerun: the stored report is then pending already.
 */
export function isRerunAtHead(row: CiWatchRow, headSha: string, check?: CiCheck): boolean {
  if (!check || row.headSha !== headSha || checkVerdict(check) !== 'pending') return false;
  const before = storedChecks(row);
  if (before.some((c) => checkVerdict(c) === 'pending')) return false;
  const previous = before.find((c) => c.name === check.name);
  return previous !== undefined && checkVerdict(previous) === 'failing';
}

/** True when the agent pushed `sha` (heads are kept as prefixes: an observation shows 12). */
export function isAgentHead(agentHeads: readonly string[], sha: string): boolean {
  const head = sha.toLowerCase();
  return agentHeads.some((h) => head.startsWith(h.toLowerCase()));
}

/** A pull request the agent pushed to, read from its `commit_and_open_pr` observation. */
export interface AgentPush {
  owner: string;
  repo: string;
  number: number;
  url: string;
  /** The commit's sha prefix, or null when there was nothing new to commit. */
  commit: string | null;
}

const PUSH =
  /^(?:Committed ([0-9a-f]{7,40})|There was nothing new to commit) and pushed .*: (\S+)$/;
const PULL_URL = /\/([^/\s]+)\/([^/\s]+)\/pull\/(\d+)$/;

/** The pull request a web url names (`…/<owner>/<repo>/pull/<number>`), or null. */
export function pullRequestOf(url: string): Omit<AgentPush, 'commit'> | null {
  const pull = PULL_URL.exec(url.trim());
  if (!pull?.[1] || !pull[2] || !pull[3] || !/^https?:\/\//.test(url.trim())) return null;
  return { owner: pull[1], repo: pull[2], number: Number(pull[3]), url: url.trim() };
}

/** What `commit_and_open_pr` reported (its observation: `Committed <sha> and pushed …: <url>`). */
export function agentPushOf(observation: string): AgentPush | null {
  const push = PUSH.exec(observation.trim());
  const pull = push?.[2] ? pullRequestOf(push[2]) : null;
  return push && pull ? { ...pull, commit: push[1] ?? null } : null;
}
