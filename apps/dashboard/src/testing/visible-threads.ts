import { factory } from '@caravel/db/testing';
import { AppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import type { VisibleThreadsService } from '../services/visible-threads.service.js';

/** Every thread visible to everyone but `hiddenFrom`, who gets the 404 of a missing thread. */
export function visibleThreadsHidingFrom(hiddenFrom: string): VisibleThreadsService {
  return strictMock<VisibleThreadsService>(
    {
      thread: (caller, id) =>
        caller?.kind === 'person' && caller.session.login === hiddenFrom
          ? Promise.reject(new AppError('NOT_FOUND', `no thread ${id}`))
          : Promise.resolve(factory.thread({ id })),
    },
    'visible threads',
  );
}
