import { EnabledRepositoryRepository, type EnabledRepositoryRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ROUTES } from '../api/routes.js';
import type { Caller } from '../auth/session.types.js';

export type RepositorySettings = z.output<typeof ROUTES.saveRepository.body>;

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** `owner/name` from the route's parts; BAD_REQUEST when either is not a GitHub name. */
export function repositoryOf(owner: string, name: string): string {
  if (!NAME.test(owner) || !NAME.test(name)) {
    throw new AppError('BAD_REQUEST', `invalid repository ${owner}/${name}: owner/name`);
  }
  return `${owner}/${name}`;
}

/** Who a change is recorded under: the person's login, or `token` for the machine credential. */
export function actorOf(caller: Caller): string {
  return caller.kind === 'person' ? caller.session.login : 'token';
}

/** The repositories an admin enabled in the dashboard, and what Caravel does in each. */
@Injectable()
export class EnabledRepositoriesService {
  constructor(
    @Inject(EnabledRepositoryRepository) private readonly repositories: EnabledRepositoryRepository,
  ) {}

  list(): Promise<EnabledRepositoryRow[]> {
    return this.repositories.list();
  }

  save(
    caller: Caller,
    owner: string,
    name: string,
    settings: RepositorySettings,
  ): Promise<EnabledRepositoryRow> {
    return this.repositories.save({
      repository: repositoryOf(owner, name),
      ...settings,
      updatedBy: actorOf(caller),
    });
  }

  async remove(owner: string, name: string): Promise<void> {
    const repository = repositoryOf(owner, name);
    if (!(await this.repositories.remove(repository))) {
      throw new AppError('NOT_FOUND', `${repository} is not enabled`);
    }
  }
}
