import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');

/** Projects whose sources must not import themselves in a circle. */
const PROJECTS = ['apps/agent-runner/src'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files of the project that `file` imports or re-exports (type-only imports too). */
function relativeImports(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) => {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (!specifier?.startsWith('.')) return [];
    const base = join(dirname(file), specifier).replace(/\.js$/, '');
    const target = [`${base}.ts`, join(base, 'index.ts')].find((path) =>
      existsSync(join(root, path)),
    );
    return target ? [target] : [];
  });
}

/** Every import cycle of `graph` (file -> files it imports), each from its first file back to it. */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    const at = stack.indexOf(file);
    if (at >= 0) {
      cycles.push([...stack.slice(at), file]);
      return;
    }
    if (done.has(file)) return;
    stack.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    stack.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle, also through a third file, and nothing in a tree', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(
      importCycles(
        new Map([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
  });

  it.each(PROJECTS)('%s imports nothing in a circle', (project) => {
    const graph = new Map(sourceFiles(project).map((file) => [file, relativeImports(file)]));
    expect(graph.size).toBeGreaterThan(10);
    const cycles = importCycles(graph).map((cycle) =>
      cycle.map((file) => relative(project, file)).join(' -> '),
    );
    expect(cycles).toEqual([]);
  });
});
