import type { LoopbackApi } from '../http/loopback-api.js';
import type { Collaborators } from './collaborator-routes.js';

/**
 * `GET /repos/{o}/{r}/collaborators/{username}/permission` in GitHub's shape: `admin` for the
 * repository's owner, `write` for a collaborator ({@link Collaborators.add}), `none` for anyone
 * else (GitHub answers `none` for a user without access; 404 only for a user it does not know).
 */
export function registerCollaboratorPermissionRoutes(
  api: LoopbackApi,
  collaborators: Collaborators,
): void {
  api.route('GET', '/repos/:owner/:repo/collaborators/:username/permission', (_call, p) => {
    const owner = String(p['owner']);
    const login = String(p['username']);
    const permission =
      owner.toLowerCase() === login.toLowerCase()
        ? 'admin'
        : collaborators.has(`${owner}/${String(p['repo'])}`, login)
          ? 'write'
          : 'none';
    return {
      status: 200,
      body: { permission, role_name: permission, user: { login, type: 'User' } },
    };
  });
}
