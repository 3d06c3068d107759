/** What a signed-in person may do: members read and act in threads; admins also change settings. */
export type Role = 'member' | 'admin';

/** A person as GitHub named them at sign-in. */
export interface Person {
  login: string;
  githubId: number;
  name: string | null;
  avatarUrl: string | null;
  role: Role;
}

/** How a person was let in at sign-in: a list naming their login, or active membership of `org`. */
export type Admission = { via: 'list' } | { via: 'org'; org: string };

/**
 * A sign-in, sealed into the session cookie. The server keeps a record of it too
 * (`dashboard_sessions`, under the SHA-256 of `sid`), so it can be ended before it expires.
 */
export interface Session extends Person {
  /**
   * The server-side session's random id: only in the sealed cookie (never in an answer or a log).
   * Absent for a personal token's caller, which has no session.
   */
  sid?: string | undefined;
  /** How the sign-in let the person in (absent in cookies sealed before it was recorded). */
  admission?: Admission | undefined;
  /** Milliseconds since the epoch after which the cookie no longer opens. */
  expiresAt: number;
}

/**
 * Who sent a request: a signed-in person (session cookie, so origin-checked on mutations; or one
 * of their API tokens), or a machine holding `DASHBOARD_TOKEN` (a bearer header, which no browser
 * attaches on its own).
 */
export type Caller =
  | {
      kind: 'person';
      session: Session;
      /** Set when the person acts through one of their API tokens (a bearer, not the cookie). */
      token?: { id: string; scope: 'read' | 'act' };
    }
  | { kind: 'machine' };

/** The request, as the auth layer reads and annotates it. */
export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  method: string;
  protocol?: string;
  caller?: Caller | null;
}
