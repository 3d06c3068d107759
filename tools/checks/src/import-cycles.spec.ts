import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');

/**
 * Every project's sources (apps, libs, test projects, end-to-end scenarios and the workspace's
 * checks and chaos runs): none may import itself in a circle.
 */
const PROJECTS = [
  ...['apps', 'libs', 'tests'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, 'src')))
      .map((entry) => `${group}/${entry.name}/src`),
  ),
  'e2e',
  'tools/checks/src',
  'tools/chaos',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers `file` imports, re-exports (type-only too) or loads with `import()`. */
function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    // A lazy import is an edge too: deferring a load does not make a circle of modules a tree.
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The files of the project that `file` imports, re-exports or loads lazily. */
function relativeImports(file: string): string[] {
  return specifiersOf(file).flatMap((specifier) => {
    if (!specifier.startsWith('.')) return [];
    const base = join(dirname(file), specifier).replace(/\.js$/, '');
    const target = [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(path));
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

/** The import cycles among the sources under `dir`, as paths relative to it. */
function cyclesOf(dir: string): string[] {
  const graph = new Map(sourceFiles(dir).map((file) => [file, relativeImports(file)]));
  return importCycles(graph).map((cycle) => cycle.map((file) => relative(dir, file)).join(' -> '));
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

  it('finds a cycle between real files, through a re-export, an index and a lazy import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      mkdirSync(join(dir, 'b'));
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b/index.js';\nexport const a = b;\n");
      writeFileSync(join(dir, 'b', 'index.ts'), "export * from './c.js';\n");
      writeFileSync(
        join(dir, 'b', 'c.ts'),
        "import type { a } from '../a.js';\nexport const b = 1;\n",
      );
      expect(cyclesOf(dir)).toEqual(['a.ts -> b/index.ts -> b/c.ts -> a.ts']);
      // Lazily loaded, the same circle is still one.
      writeFileSync(
        join(dir, 'b', 'c.ts'),
        "export const b = 1;\nexport const load = () => import('../a.js');\n",
      );
      expect(cyclesOf(dir)).toEqual(['a.ts -> b/index.ts -> b/c.ts -> a.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the imports of every project', () => {
    expect(PROJECTS.length).toBeGreaterThan(20);
    const edges = sourceFiles(join(root, 'apps/agent-runner/src')).flatMap(relativeImports);
    expect(edges.length).toBeGreaterThan(100);
  });

  it.each(PROJECTS)('%s imports nothing in a circle', (project) => {
    expect(cyclesOf(join(root, project))).toEqual([]);
  });
});
