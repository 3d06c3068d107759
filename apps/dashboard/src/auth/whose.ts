import { AppError } from '@caravel/errors';
import type { Caller } from './session.types.js';

/** An admin's own sign-in (a token is never an admin) or the machine token. */
export function mayManageAnyone(caller: Caller): boolean {
  return caller.kind === 'machine' || (!caller.token && caller.session.role === 'admin');
}

/**
 * Whose `things` (tokens, sessions) a caller lists: `login` when named, else their own. The
 * machine token must name someone (BAD_REQUEST); a person names only themself unless they may
 * manage anyone (FORBIDDEN), so someone who leaves can be cut off by an admin.
 */
export function whoseFor(caller: Caller, login: string | undefined, things: string): string {
  const own = caller.kind === 'person' ? caller.session.login : undefined;
  const whose = login ?? own;
  if (whose === undefined) {
    throw new AppError(
      'BAD_REQUEST',
      `the machine token names whose ${things} to list: ?login=<GitHub login>`,
    );
  }
  if (whose.toLowerCase() !== own?.toLowerCase() && !mayManageAnyone(caller)) {
    throw new AppError(
      'FORBIDDEN',
      `${own} may only list their own ${things}; another person’s are for admins`,
    );
  }
  return whose;
}
