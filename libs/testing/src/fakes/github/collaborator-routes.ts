import type { LoopbackApi } from '../http/loopback-api.js';

/** Who collaborates on each repository (`owner/name` and logins, lower case). */
export class Collaborators {
  readonly byRepository = new Map<string, Set<string>>();

  add(repository: string, login: string): void {
    const key = repository.toLowerCase();
    const logins = this.byRepository.get(key) ?? new Set<string>();
    logins.add(login.toLowerCase());
    this.byRepository.set(key, logins);
  }

  /** A repository's owner collaborates on it; anyone else only once added. */
  has(repository: string, login: string): boolean {
    const key = repository.toLowerCase();
    const name = login.toLowerCase();
    return key.split('/')[0] === name || (this.byRepository.get(key)?.has(name) ?? false);
  }
}

/** `GET /repos/{o}/{r}/collaborators/{username}`: 204 for a collaborator, 404 otherwise. */
export function registerCollaboratorRoutes(api: LoopbackApi, collaborators: Collaborators): void {
  api.route('GET', '/repos/:owner/:repo/collaborators/:username', (_call, p) =>
    collaborators.has(`${p['owner']}/${p['repo']}`, String(p['username']))
      ? { status: 204 }
      : { status: 404, body: { message: 'Not Found' } },
  );
}
