import { randomUUID } from 'node:crypto';
import type { IdentityHandle, IdentityLinks, IdentityRepository, IdentityRow } from '@caravel/db';

/** A person as a source names them: the trigger's source and its id for the person. */
export interface SourceActor {
  source: 'github' | 'slack' | 'linear' | 'jira' | 'confluence' | 'synthetic';
  externalId: string;
}

/**
 * Which handles name a source's people, tried in order. A Linear webhook names its author by
 * Linear user id (`actor.id`); a Linear email is tried too for an author named by one.
 */
const HANDLES_OF: Record<SourceActor['source'], readonly IdentityHandle[]> = {
  github: ['githubLogin'],
  slack: ['slackUserId'],
  linear: ['linearUserId', 'email'],
  jira: ['jiraAccountId'],
  confluence: ['jiraAccountId'],
  synthetic: [],
};

/** Logins and emails compare case-insensitively; ids from Slack, Linear and Jira are exact. */
function canonical(links: IdentityLinks): IdentityLinks {
  return {
    ...links,
    ...(links.githubLogin ? { githubLogin: links.githubLogin.toLowerCase() } : {}),
    ...(links.email ? { email: links.email.trim().toLowerCase() } : {}),
  };
}

/**
 * The identity map used for attribution: one person's GitHub login, Slack user, email (Linear)
 * and Jira account. {@link githubLoginFor} answers "who is this, on GitHub?" for a trigger's
 * author, which decides whose token acts and whether their words are trusted.
 */
export class IdentityDirectory {
  constructor(private readonly identities: IdentityRepository) {}

  /**
   * Links handles into one identity: the one already holding any of them, else a new one. A
   * handle held by a different identity than the others makes the database refuse the link.
   */
  async link(links: IdentityLinks): Promise<IdentityRow> {
    const wanted = canonical(links);
    for (const handle of [
      'githubLogin',
      'slackUserId',
      'email',
      'linearUserId',
      'jiraAccountId',
    ] as const) {
      const value = wanted[handle];
      const found = value ? await this.identities.findBy(handle, value) : null;
      if (found) return (await this.identities.link(found.id, wanted)) ?? found;
    }
    return this.identities.insert(randomUUID(), wanted);
  }

  /** The identity of a trigger's author, if mapped. */
  async find(actor: SourceActor): Promise<IdentityRow | null> {
    for (const handle of HANDLES_OF[actor.source]) {
      if (handle === 'email' && !actor.externalId.includes('@')) continue;
      const value =
        handle === 'githubLogin' || handle === 'email'
          ? actor.externalId.toLowerCase()
          : actor.externalId;
      const found = await this.identities.findBy(handle, value);
      if (found) return found;
    }
    return null;
  }

  /** The author's GitHub login (for token resolution and attribution), if mapped. */
  async githubLoginFor(actor: SourceActor): Promise<string | null> {
    return (await this.find(actor))?.githubLogin ?? null;
  }
}
