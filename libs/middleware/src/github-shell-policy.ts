import {
  curlCall,
  ghApiCall,
  ghArgs,
  ghPositionals,
  isGh,
  type ApiCall,
} from './github-shell-calls.js';
import { shellInvocations, type ShellInvocation } from './shell-invocations.js';

/** Why a shell command was refused, in words the model can act on. */
export interface ShellPolicyViolation {
  /** The program and what it tried, e.g. `gh pr review --approve`. */
  what: string;
}

const VERDICTS = new Set(['APPROVE', 'REQUEST_CHANGES']);
const REVIEWS_ENDPOINT = /\/pulls\/[^/?#\s]+\/reviews(?:\/[^/?#\s]+\/events)?\/?(?:[?#].*)?$/i;
const PULLS_COLLECTION = /\/pulls\/?(?:[?#].*)?$/i;
const ONE_PULL = /\/pulls\/\d+\/?(?:[?#].*)?$/i;
const REVIEW_MUTATION = /\b(addPullRequestReview|submitPullRequestReview)\b/;
const PR_MUTATION = /\b(createPullRequest|updatePullRequest|markPullRequestReadyForReview)\b/;
const PR_REVIEW_VALUE_FLAGS = new Set(['-b', '--body', '-F', '--body-file', '-R', '--repo']);

/**
 * The first review verdict (approve or request changes) that `script` would post through the
 * shell: `gh pr review` with `--approve`/`-a`/`--request-changes`/`-r`, or a `gh api`/`curl` call
 * that posts `event=APPROVE|REQUEST_CHANGES` to `/pulls/N/reviews` (or submits a pending review,
 * or the GraphQL review mutations). Comment reviews and reads return null. A body the guard
 * cannot read (`--input file`, `-d @file`) counts as a verdict on a reviews endpoint.
 */
export function findShellReviewVerdict(script: string): ShellPolicyViolation | null {
  for (const invocation of shellInvocations(script)) {
    const found = reviewVerdictOf(invocation);
    if (found) return found;
  }
  return null;
}

/**
 * The first pull-request creation or update that `script` would make outside the PR tool:
 * `gh pr create|new|edit|ready`, `hub pull-request`, or a `gh api`/`curl` write to `/pulls`
 * or `/pulls/N` (or the GraphQL pull-request mutations).
 */
export function findShellPullRequestWrite(script: string): ShellPolicyViolation | null {
  for (const invocation of shellInvocations(script)) {
    const found = pullRequestWriteOf(invocation);
    if (found) return found;
  }
  return null;
}

function reviewVerdictOf(invocation: ShellInvocation): ShellPolicyViolation | null {
  if (isGh(invocation, 'pr', ['review'])) {
    const flag = verdictFlag(ghArgs(invocation.args));
    return flag ? { what: `gh pr review ${flag}` } : null;
  }
  const call = apiCallOf(invocation);
  if (!call || call.method === 'GET') return null;
  if (call.endpoints.some((e) => /(^|\/)graphql\/?$/.test(e))) {
    const texts = [...call.fields, ...call.bodies];
    const mutation = texts.some((t) => REVIEW_MUTATION.test(t));
    const verdict = texts.some((t) => /\b(APPROVE|REQUEST_CHANGES)\b/.test(t));
    return mutation && verdict ? { what: `${invocation.program} GraphQL review verdict` } : null;
  }
  if (!call.endpoints.some((e) => REVIEWS_ENDPOINT.test(e))) return null;
  const verdict =
    call.fields.map(fieldVerdict).find(Boolean) ?? call.bodies.map(bodyVerdict).find(Boolean);
  if (verdict)
    return { what: `${invocation.program} posting event=${verdict} to a reviews endpoint` };
  return call.opaqueBody
    ? { what: `${invocation.program} posting an unreadable body to a reviews endpoint` }
    : null;
}

function pullRequestWriteOf(invocation: ShellInvocation): ShellPolicyViolation | null {
  if (isGh(invocation, 'pr', ['create', 'new', 'edit', 'ready'])) {
    return { what: `gh pr ${ghPositionals(invocation.args)[1] ?? ''}` };
  }
  if (invocation.program === 'hub' && invocation.args.includes('pull-request')) {
    return { what: 'hub pull-request' };
  }
  const call = apiCallOf(invocation);
  if (!call || call.method === 'GET') return null;
  const writes =
    call.method !== null || call.fields.length > 0 || call.bodies.length > 0 || call.opaqueBody;
  if (!writes) return null;
  if (call.endpoints.some((e) => /(^|\/)graphql\/?$/.test(e))) {
    const mutation = [...call.fields, ...call.bodies].some((t) => PR_MUTATION.test(t));
    return mutation ? { what: `${invocation.program} GraphQL pull-request mutation` } : null;
  }
  const target = call.endpoints.find((e) => PULLS_COLLECTION.test(e) || ONE_PULL.test(e));
  return target ? { what: `${invocation.program} writing to ${target}` } : null;
}

function apiCallOf(invocation: ShellInvocation): ApiCall | null {
  if (invocation.program === 'curl') return curlCall(invocation.args, invocation.stdin);
  if (invocation.program !== 'gh') return null;
  const positionals = ghPositionals(invocation.args);
  if (positionals[0] !== 'api') return null;
  const after = invocation.args.indexOf('api');
  return ghApiCall(invocation.args.slice(after + 1), invocation.stdin);
}

/** The verdict flag of `gh pr review` arguments (short clusters already expanded). */
function verdictFlag(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] ?? '';
    if (arg === '--') return null;
    const [name, value] = arg.startsWith('--') ? splitAtEquals(arg) : [arg, undefined];
    if (value !== undefined && /^(false|0|f)$/i.test(value)) continue;
    if (['-a', '--approve', '-r', '--request-changes'].includes(name)) return name;
    if (value === undefined && PR_REVIEW_VALUE_FLAGS.has(name)) i += 1;
  }
  return null;
}

function splitAtEquals(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

function fieldVerdict(field: string): string | null {
  const eq = field.indexOf('=');
  if (eq === -1 || field.slice(0, eq).trim().toLowerCase() !== 'event') return null;
  return asVerdict(field.slice(eq + 1));
}

function bodyVerdict(body: string): string | null {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed !== null && typeof parsed === 'object' && 'event' in parsed) {
        return asVerdict(String(parsed.event));
      }
      return null;
    } catch {
      // Not JSON after all (a template, a shell fragment): fall back to a textual match.
      const match = /"?event"?\s*:\s*"?([A-Za-z_]+)/i.exec(trimmed);
      return match ? asVerdict(match[1] ?? '') : null;
    }
  }
  for (const [key, value] of new URLSearchParams(trimmed)) {
    if (key.trim().toLowerCase() === 'event') return asVerdict(value);
  }
  return null;
}

function asVerdict(value: string): string | null {
  const upper = value
    .trim()
    .replace(/^["']|["']$/g, '')
    .toUpperCase();
  return VERDICTS.has(upper) ? upper : null;
}
