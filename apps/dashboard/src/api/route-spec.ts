import type { z } from 'zod';

/**
 * Who may call a route: anyone; readers (a session or the token once sign-in is configured);
 * actors (the token, or a session from a trusted origin); admins (likewise, with the admin role).
 */
export type RouteAccess = 'public' | 'read' | 'action' | 'admin';

/** One API route: its inputs (what the controller parses with) and its answer, documented. */
export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI style: `/api/threads/{id}`. */
  path: string;
  summary: string;
  access: RouteAccess;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The JSON answer; absent for redirects, streams and empty answers. */
  response?: z.ZodType;
  /** Status of a successful answer (200 unless said). */
  status?: number;
  /** A non-JSON answer: `text/event-stream` or a redirect. */
  produces?: 'text/event-stream' | 'redirect';
}
