import type { Caller, Role } from '../auth/session.types.js';

/** A signed-in person as the guards hand them to a controller: a member unless said. */
export function personCaller(login = 'octocat', role: Role = 'member'): Caller {
  return {
    kind: 'person',
    session: { login, githubId: 1, name: null, avatarUrl: null, role, expiresAt: 0 },
  };
}
