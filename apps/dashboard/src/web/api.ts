import type { z } from 'zod';
import type {
  authStatusResponse,
  enabledRepositoryResponse,
  meResponse,
  profileResponse,
  reviewedPullRequestResponse,
  reviewLedgerResponse,
  runEventResponse,
  runResponse,
  threadResponse,
} from '../api/schemas.js';

export type AuthStatus = z.output<typeof authStatusResponse>;
export type Me = z.output<typeof meResponse>;
export type Thread = z.output<typeof threadResponse>;
export type Run = z.output<typeof runResponse>;
export type RunEvent = z.output<typeof runEventResponse>;
export type Profile = z.output<typeof profileResponse>;
export type EnabledRepository = z.output<typeof enabledRepositoryResponse>;
export type ReviewedPullRequest = z.output<typeof reviewedPullRequestResponse>;
export type ReviewLedger = z.output<typeof reviewLedgerResponse>;
export type LedgerFinding = ReviewLedger['findings'][number];

/** A refusal as the API coded it, shown to the person as its message. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** One call to the dashboard API (same origin, so the session cookie and Origin go along). */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (response.status === 204) return undefined as T;
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string };
  } | null;
  if (!response.ok) {
    throw new ApiError(
      body?.error?.code ?? 'INTERNAL',
      body?.error?.message ?? `the dashboard answered ${response.status}`,
      response.status,
    );
  }
  return body as T;
}
