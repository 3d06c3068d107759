import { describe, expect, it } from '@jest/globals';
import type { EnabledRepositoryRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import type { EnabledRepositoriesService } from '../services/enabled-repositories.service.js';
import { personCaller } from '../testing/callers.js';
import { visibleOnGitHub } from '../testing/visible-threads.js';
import { RepositoriesController } from './repositories.controller.js';

describe('GET /api/repositories', () => {
  const rows = ['acme/web', 'acme/payroll'].map(
    (repository) => ({ repository, agent: true }) as EnabledRepositoryRow,
  );
  const controller = new RepositoriesController(
    strictMock<EnabledRepositoriesService>({ list: async () => rows }, 'repositories'),
    visibleOnGitHub(['Acme/Web']),
  );

  it('does not name a private repository to a member GitHub keeps out of it', async () => {
    expect((await controller.list(personCaller('octocat'))).map((r) => r.repository)).toEqual([
      'acme/web',
    ]);
  });

  it('lists every enabled repository to an admin and the machine token', async () => {
    expect(await controller.list(personCaller('hubot', 'admin'))).toEqual(rows);
    expect(await controller.list({ kind: 'machine' })).toEqual(rows);
  });
});
