import type { Collaborators } from './collaborator-routes.js';

/** GitHub's `author_association` of `login` on `repository` (`owner/name`), from `login` alone. */
export type AuthorAssociationOf = (repository: string, login: string) => string;

/**
 * How GitHub relates an author to a repository in what it lists: `OWNER` for the account that
 * owns it, `MEMBER` for a member of the owning organization, `COLLABORATOR` for a collaborator,
 * `NONE` for anyone else (a stranger, or an App's bot: GitHub says `NONE` for Caravel's own).
 */
export function authorAssociation(
  orgMembers: ReadonlyMap<string, ReadonlySet<string>>,
  collaborators: Collaborators,
): AuthorAssociationOf {
  return (repository, login) => {
    const [owner = ''] = repository.toLowerCase().split('/');
    const name = login.toLowerCase();
    if (name === owner) return 'OWNER';
    if (orgMembers.get(owner)?.has(name)) return 'MEMBER';
    return collaborators.has(repository, login) ? 'COLLABORATOR' : 'NONE';
  };
}
