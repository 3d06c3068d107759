import { IdentityRepository, isUniqueViolation, type IdentityRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { IdentityDirectory } from '@caravel/integrations';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ROUTES } from '../api/routes.js';

/** The handles an admin links into one person's identity. */
export type IdentityLinksInput = z.output<typeof ROUTES.linkIdentity.body>;

const LISTED = 1000;

/**
 * The identity map in the dashboard (admins): who a Slack, Linear or Jira author is on GitHub,
 * which decides whose token acts for them and whether their words are trusted.
 */
@Injectable()
export class IdentitiesService {
  private readonly directory: IdentityDirectory;

  constructor(@Inject(IdentityRepository) private readonly identities: IdentityRepository) {
    this.directory = new IdentityDirectory(identities);
  }

  list(): Promise<IdentityRow[]> {
    return this.identities.list(LISTED);
  }

  /** Links the handles (logins and emails lower-cased); a handle another person holds: 409. */
  async link(links: IdentityLinksInput): Promise<IdentityRow> {
    const handles = [links.githubLogin, links.slackUserId, links.email];
    handles.push(links.linearUserId, links.jiraAccountId);
    if (handles.every((value) => value === undefined))
      throw new AppError('BAD_REQUEST', 'name at least one handle (githubLogin, slackUserId, …)');
    try {
      return await this.directory.link(links);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new AppError(
        'CONFLICT',
        "one of these handles is already another person's: remove it from them first",
        { cause: error },
      );
    }
  }

  async remove(id: string): Promise<void> {
    if (!(await this.identities.delete(id))) throw new AppError('NOT_FOUND', `no identity ${id}`);
  }
}
