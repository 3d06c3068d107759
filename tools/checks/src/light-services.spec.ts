import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');

/**
 * The services that never run an agent: loading LangChain and the model providers' SDKs costs
 * each of them ~0.7 s of start and ~60 MB of memory for nothing. The agent's libraries keep
 * LangChain behind their own entries (`@caravel/agent/langchain`, `@caravel/tools/langchain`,
 * the middleware but for `@caravel/middleware/queued-message` and `/errors`), which these
 * services never load at start (a dynamic `import()` is not followed).
 */
const LIGHT_SERVICES = [
  'apps/ingress/src/ingress.module.ts',
  'apps/dispatch/src/dispatch.module.ts',
  'apps/dashboard/src/dashboard.module.ts',
  'apps/sandbox-broker/src/sandbox-broker.module.ts',
];

/**
 * The services that run an agent load it at their first run, not at start: each keeps its
 * LangChain side in one kit module (`agent-kit.ts`, `reviewer-kit.ts`, `analyzer-kit.ts`) that
 * only its loader imports, dynamically. So does the embedded host composing all seven services
 * (`caravel start`), which would otherwise pay ~1-2 s and ~60 MB at every start.
 */
const LAZY_AGENT_SERVICES = [
  'apps/agent-runner/src/agent-runner.module.ts',
  'apps/reviewer/src/reviewer.module.ts',
  'apps/analyzer/src/analyzer.module.ts',
  'apps/cli/src/services.ts',
];

/** Packages a service must not load at start. */
const HEAVY =
  /^(@langchain\/|langchain$|langchain\/|openai$|openai\/|@anthropic-ai\/|deepagents$|deepagents\/)/;

/**
 * Clients `caravel start` does not use until a first call, or never on the embedded bus and PGlite:
 * the NATS client, node-postgres, PGlite's pg-wire socket (the checkpointer's, at a first run),
 * Octokit and the Slack Web API (~60 MB and ~1.5 s together). Each is loaded by a dynamic
 * `import()` where it is first needed.
 */
const EMBEDDED_UNUSED =
  /^(@nats-io\/|pg$|pg\/|@electric-sql\/pglite-socket$|@octokit\/|@slack\/web-api$)/;

/** The file a workspace package's entry resolves to under the `@caravel/source` condition. */
function workspaceEntry(specifier: string): string | undefined {
  const [scope, name, ...rest] = specifier.split('/');
  if (scope !== '@caravel' || !name) return undefined;
  const dir = ['libs', 'apps']
    .map((group) => join(root, group, name))
    .find((candidate) => existsSync(join(candidate, 'package.json')));
  if (!dir) return undefined;
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, { '@caravel/source'?: string }>;
  };
  const source =
    manifest.exports[rest.length === 0 ? '.' : `./${rest.join('/')}`]?.['@caravel/source'];
  return source ? join(dir, source) : undefined;
}

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = join(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path));
}

/** True when the statement brings in values (not only types) at module load. */
function loadsValues(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return false;
    const clause = statement.exportClause;
    if (clause && ts.isNamedExports(clause))
      return clause.elements.length === 0 || clause.elements.some((e) => !e.isTypeOnly);
    return true;
  }
  const clause = statement.importClause;
  if (!clause) return true; // a side-effect import
  if (clause.isTypeOnly) return false;
  if (clause.name) return true;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return true;
  return bindings.elements.length === 0 || bindings.elements.some((e) => !e.isTypeOnly);
}

/** The module specifiers `file` loads values from when it is evaluated (static imports only). */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  return source.statements.flatMap((statement) =>
    (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
    statement.moduleSpecifier &&
    ts.isStringLiteral(statement.moduleSpecifier) &&
    loadsValues(statement)
      ? [statement.moduleSpecifier.text]
      : [],
  );
}

/**
 * The heavy packages `entry` loads at start, each with the chain of workspace files that leads to
 * it (first found), e.g. `a.ts > b.ts > @langchain/core/messages`.
 */
export function heavyLoads(entry: string, heavy: RegExp = HEAVY): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, chain: readonly string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = [...chain, relative(root, file)];
    for (const specifier of valueImports(file)) {
      if (heavy.test(specifier)) {
        found.push([...here, specifier].join(' > '));
        continue;
      }
      const next = specifier.startsWith('.')
        ? resolveLocal(file, specifier)
        : workspaceEntry(specifier);
      if (next) visit(next, here);
    }
  };
  visit(entry, []);
  return found;
}

describe('services that run no agent load no LangChain', () => {
  it('finds a heavy package behind a workspace entry and a re-export, not behind types', () => {
    const dir = mkdtempSync(join(tmpdir(), 'light-services-'));
    try {
      mkdirSync(join(dir, 'lib'));
      writeFileSync(
        join(dir, 'main.ts'),
        "import type { Agent } from './lib/index.js';\nimport { b } from './b.js';\nexport const a = b;\n" +
          "export const later = () => import('./lib/model.js');\n",
      );
      writeFileSync(
        join(dir, 'b.ts'),
        "export { model } from './lib/index.js';\nexport const b = 1;\n",
      );
      writeFileSync(join(dir, 'lib', 'index.ts'), "export * from './model.js';\n");
      writeFileSync(
        join(dir, 'lib', 'model.ts'),
        "import { ChatOpenAI } from '@langchain/openai';\nimport { type X } from 'openai';\nexport const model = ChatOpenAI;\n",
      );
      const loads = heavyLoads(join(dir, 'main.ts')).map((chain) =>
        chain.replaceAll(`${relative(root, dir)}/`, ''),
      );
      expect(loads).toEqual(['main.ts > b.ts > lib/index.ts > lib/model.ts > @langchain/openai']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows workspace packages through their entries', () => {
    const kit = heavyLoads(join(root, 'apps/agent-runner/src/agent/agent-kit.ts'));
    expect(kit).toContainEqual(expect.stringMatching(/libs\/agent\/src\/langchain\.ts > /));
  });

  it.each(LIGHT_SERVICES)('%s', (entry) => {
    expect(heavyLoads(join(root, entry))).toEqual([]);
  });
});

describe('services that run an agent load LangChain at their first run, not at start', () => {
  it.each(LAZY_AGENT_SERVICES)('%s', (entry) => {
    expect(heavyLoads(join(root, entry))).toEqual([]);
  });
});

describe('the embedded host loads no client an idle start does not use', () => {
  it('apps/cli/src/commands/start.command.ts', () => {
    const entry = join(root, 'apps/cli/src/commands/start.command.ts');
    expect(heavyLoads(entry, EMBEDDED_UNUSED)).toEqual([]);
    expect(heavyLoads(entry, HEAVY)).toEqual([]);
  });
});
