import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deriveServiceTables } from './table-map.derive.js';

// A workspace of two services and a db library, to show what reaches a service's grant set.
const FILES: Record<string, string> = {
  'libs/db/package.json': JSON.stringify({
    name: '@caravel/db',
    exports: { '.': { '@caravel/source': './src/index.ts' } },
  }),
  'libs/db/src/generated/types.ts':
    'export type DB = {\n  runs: R;\n  tokens: T;\n  threads: H;\n};\n',
  'libs/db/src/index.ts':
    "export { RunRepository } from './runs.js';\nexport * from './tokens.js';\n" +
    "export { migrate } from './migrations/migration-runner.js';\n",
  'libs/db/src/runs.ts':
    "export class RunRepository { list() { return this.db.selectFrom('runs').innerJoin('threads', 'a', 'b'); } }\n",
  'libs/db/src/tokens.ts':
    "export class TokenRepository { put() { return this.db.insertInto('tokens'); } }\n" +
    'export function tokenKey(id: string) { return id; }\n',
  'libs/db/src/migrations/migration-runner.ts':
    'export function migrate() { return sql`insert into runs values (1)`; }\n',
  // Injected by its constructor's parameter type (Nest), and a pure helper beside the tokens.
  'apps/one/src/main.ts':
    "import { Service } from './service.js';\nimport { migrate } from '@caravel/db';\nrun(Service, migrate);\n",
  'apps/one/src/service.ts':
    "import { RunRepository, tokenKey } from '@caravel/db';\n" +
    'export class Service { constructor(private readonly runs: RunRepository) {} key() { return tokenKey(1); } }\n',
  // Names the token repository as a type only: erased, it touches nothing.
  'apps/two/src/main.ts':
    "import type { TokenRepository } from '@caravel/db';\nimport { type RunRepository } from '@caravel/db';\n" +
    'export function f(tokens: TokenRepository, runs: RunRepository) { return [tokens, runs]; }\n',
};

describe('deriveServiceTables', () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'caravel-table-map-'));
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("gives a service the tables of the repositories its code reaches, and no others'", () => {
    const { map, problems } = deriveServiceTables(root, ['one', 'two']);
    expect(problems).toEqual([]);
    // `migrate` is the owner's: a service reaching it is not granted its writes.
    expect(map['one']).toEqual({ writes: [], reads: ['runs', 'threads'] });
    expect(map['two']).toEqual({ writes: [], reads: [] });
  });

  it('follows a service that starts using another repository', () => {
    writeFileSync(
      join(root, 'apps/two/src/main.ts'),
      "import { TokenRepository } from '@caravel/db';\nexport const tokens = new TokenRepository();\n" +
        'use(tokens);\n',
    );
    expect(deriveServiceTables(root, ['two']).map['two']).toEqual({
      writes: ['tokens'],
      reads: [],
    });
  });
});
