import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deriveServiceTables } from './table-map.derive.js';

// A workspace of two services and a db library, to show what reaches a service's grant set.
const FILES: Record<string, string> = {
  'tsconfig.typecheck.json': JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      baseUrl: '.',
      paths: { '@caravel/db': ['libs/db/src/index.ts'] },
    },
  }),
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
    'declare const db: any;\n' +
    'export class RunRepository {\n' +
    "  list() { return db.selectFrom('runs').innerJoin('threads', 'a', 'b'); }\n" +
    "  purge() { return db.deleteFrom('runs'); }\n}\n",
  'libs/db/src/tokens.ts':
    'declare const db: any;\nexport class TokenRepository {\n' +
    "  put() { return db.insertInto('tokens'); }\n  private write() { return db.deleteFrom('runs'); }\n}\n" +
    'export function tokenKey(id: number) { return id; }\n',
  'libs/db/src/migrations/migration-runner.ts':
    'declare const sql: any;\nexport function migrate() { return sql`insert into runs values (1)`; }\n',
  // Injected by its constructor's parameter type (Nest); a lazily loaded kit; a `purge` of another
  // class, which is not the repository's.
  'apps/one/src/main.ts':
    "import { Service } from './service.js';\nimport { migrate } from '@caravel/db';\n" +
    'declare function run(...x: unknown[]): void;\nrun(Service, migrate);\n',
  'apps/one/src/service.ts':
    "import { RunRepository, tokenKey } from '@caravel/db';\nimport { loader } from './loader.js';\n" +
    'class Cache { purge() { return 0; } }\n' +
    'export class Service {\n  constructor(private readonly runs: RunRepository, private readonly cache: Cache) {}\n' +
    '  list() { this.cache.purge(); return [this.runs.list(), tokenKey(1), loader()]; }\n}\n',
  'apps/one/src/loader.ts': "export const loader = () => import('./kit.js');\n",
  'apps/one/src/kit.ts':
    "import { TokenRepository } from '@caravel/db';\nexport const save = () => new TokenRepository().put();\n",
  // The eval scheduler: a command of the CLI, whose nights run `caravel run`'s task on a
  // database of its own (not followed), while the scheduler's own code lists the runs.
  'apps/cli/src/commands/eval/schedule/eval-scheduler.command.ts':
    "import { RunRepository } from '@caravel/db';\nimport { runTask } from '../../run.command.js';\n" +
    'export const runEvalScheduler = () => [new RunRepository().list(), runTask()];\n',
  'apps/cli/src/commands/run.command.ts':
    "import { TokenRepository } from '@caravel/db';\nexport const runTask = () => new TokenRepository().put();\n",
  // Calls `write` on a receiver of unknown type: a private method is not among those it may reach.
  'apps/three/src/main.ts':
    "import { TokenRepository } from '@caravel/db';\ndeclare const anything: any;\n" +
    'anything.write(new TokenRepository());\n',
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

  it('gives a service the tables of the repository methods its code calls, and no others', () => {
    const { map, problems } = deriveServiceTables(root, ['one', 'two']);
    expect(problems).toEqual([]);
    // `purge` is never called on a RunRepository, and `migrate` is the owner's.
    expect(map['one']).toEqual({ writes: ['tokens'], reads: ['runs', 'threads'] });
    expect(map['two']).toEqual({ writes: [], reads: [] });
  });

  it('leaves out a private repository method for a receiver of unknown type', () => {
    expect(deriveServiceTables(root, ['three']).map['three']).toEqual({ writes: [], reads: [] });
  });

  it("starts the eval scheduler at its command and leaves its nights' own databases out", () => {
    const { map } = deriveServiceTables(root, ['evals']);
    // Its sweep lists runs (reading runs and threads); runTask's token writes are not its role's.
    expect(map['evals']).toEqual({ writes: [], reads: ['runs', 'threads'] });
  });

  it('follows a service that starts calling another repository method', () => {
    writeFileSync(
      join(root, 'apps/two/src/main.ts'),
      "import { RunRepository } from '@caravel/db';\nexport const runs = new RunRepository();\n" +
        'runs.purge();\n',
    );
    expect(deriveServiceTables(root, ['two']).map['two']).toEqual({
      writes: ['runs'],
      reads: [],
    });
  });
});
