import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { LANGGRAPH_TABLES, MIGRATIONS_TABLE, type TableUse } from './service-tables.types.js';
import { queryTables } from './query-tables.js';

/**
 * Derives which tables each service's process can touch from the code: from the service's
 * `main.ts`, every top-level declaration it can reach (through imports, `@caravel/*` entries and
 * re-exports, Nest's constructor injection), and the tables their queries name (Kysely's
 * `selectFrom`/`insertInto`/…, `sql` templates). A table only read stays a read; one written,
 * or locked (`for update`), is a write. Used by `service-tables.spec.ts` (the checked-in map
 * must equal it) and `npm run db:table-map` (writes it).
 */
export function deriveServiceTables(
  root: string,
  services: readonly string[],
): { map: Record<string, TableUse>; problems: string[] } {
  const graph = new ModuleGraph(root, knownTables(root));
  const map: Record<string, TableUse> = {};
  const problems: string[] = [];
  for (const service of services) {
    const use = graph.reach(join(root, 'apps', service, 'src', 'main.ts'));
    map[service] = {
      writes: [...use.writes].sort(),
      reads: [...use.reads].filter((table) => !use.writes.has(table)).sort(),
    };
    problems.push(...use.unmapped.map((where) => `${service}: ${where}`));
  }
  return { map, problems };
}

/**
 * Declarations a service's process reaches in code but never runs with its own role: the
 * migration runner (DATABASE_MIGRATE=true needs the owner's URL anyway; with false a service
 * only checks, see checkMigrated).
 */
const OWNER_ONLY = new Set(['libs/db/src/migrations/migration-runner.ts#migrate']);

/** The tables of the schema (`DB`'s keys), the runner's own and LangGraph's checkpointer's. */
function knownTables(root: string): Set<string> {
  const types = readFileSync(join(root, 'libs/db/src/generated/types.ts'), 'utf8');
  const body = /export type DB = \{([^}]*)\}/.exec(types)?.[1] ?? '';
  const tables = [...body.matchAll(/^\s*(\w+):/gm)].map((match) => match[1] ?? '');
  return new Set([...tables, MIGRATIONS_TABLE, ...LANGGRAPH_TABLES]);
}

interface ModuleInfo {
  /** Top-level declarations by name; `<module>` is the file's other statements. */
  readonly declarations: Map<string, ts.Node[]>;
  /** Value imports: local name → module file (or null outside the workspace) and its name. */
  readonly imports: Map<string, { file: string | null; name: string }>;
  /** Exports that are not declarations here: exported name → where it comes from. */
  readonly reexports: Map<string, { file: string | null; name: string }>;
  readonly starExports: string[];
  /** Modules imported for their side effects or with `import()`. */
  readonly loads: string[];
}

interface Reached {
  reads: Set<string>;
  writes: Set<string>;
  unmapped: string[];
}

const MODULE = '<module>';

class ModuleGraph {
  private readonly modules = new Map<string, ModuleInfo>();
  private readonly packages: Map<string, string>;

  constructor(
    private readonly root: string,
    private readonly tables: ReadonlySet<string>,
  ) {
    this.packages = workspaceEntries(root);
  }

  /** The tables every declaration reachable from `entry`'s statements touches. */
  reach(entry: string): Reached {
    const reached: Reached = { reads: new Set(), writes: new Set(), unmapped: [] };
    const seen = new Set<string>();
    const queue: { file: string; name: string }[] = [{ file: entry, name: MODULE }];
    for (let next = queue.pop(); next; next = queue.pop()) {
      for (const node of this.resolve(next.file, next.name)) {
        const key = `${relative(this.root, node.file)}#${node.name}`;
        if (seen.has(key) || OWNER_ONLY.has(key)) continue;
        seen.add(key);
        const info = this.module(node.file);
        if (node.name !== MODULE) queue.push({ file: node.file, name: MODULE });
        for (const declaration of info.declarations.get(node.name) ?? []) {
          const used = queryTables(declaration, this.tables);
          used.reads.forEach((table) => reached.reads.add(table));
          used.writes.forEach((table) => reached.writes.add(table));
          if (used.unmapped) reached.unmapped.push(`${key} (${used.unmapped})`);
          for (const name of valueIdentifiers(declaration)) {
            if (info.declarations.has(name)) queue.push({ file: node.file, name });
            const imported = info.imports.get(name);
            if (imported?.file) queue.push({ file: imported.file, name: imported.name });
          }
        }
        if (node.name === MODULE) {
          for (const file of info.loads) queue.push(...this.everything(file));
        }
      }
    }
    return reached;
  }

  /** Every declaration of a module loaded whole (`import()`, a side-effect import). */
  private everything(file: string): { file: string; name: string }[] {
    const info = this.module(file);
    return [...info.declarations.keys(), ...info.reexports.keys()].map((name) => ({ file, name }));
  }

  /** The declarations an exported name stands for, following re-exports. */
  private resolve(file: string, name: string, depth = 0): { file: string; name: string }[] {
    if (depth > 32) return [];
    const info = this.module(file);
    if (info.declarations.has(name)) return [{ file, name }];
    const via = info.reexports.get(name) ?? info.imports.get(name);
    if (via) return via.file ? this.resolve(via.file, via.name, depth + 1) : [];
    return info.starExports.flatMap((star) => this.resolve(star, name, depth + 1));
  }

  private module(file: string): ModuleInfo {
    let info = this.modules.get(file);
    if (!info) {
      info = existsSync(file) ? this.parse(file) : emptyModule();
      this.modules.set(file, info);
    }
    return info;
  }

  private parse(file: string): ModuleInfo {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const info: ModuleInfo = {
      declarations: new Map(),
      imports: new Map(),
      reexports: new Map(),
      starExports: [],
      loads: [],
    };
    const declare = (name: string, node: ts.Node) =>
      info.declarations.set(name, [...(info.declarations.get(name) ?? []), node]);
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement)) this.readImport(file, statement, info);
      else if (ts.isExportDeclaration(statement)) this.readExport(file, statement, info);
      else if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement))
        continue;
      else if (ts.isVariableStatement(statement)) {
        for (const binding of statement.declarationList.declarations)
          for (const name of boundNames(binding.name)) declare(name, binding);
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name
      )
        declare(statement.name.text, statement);
      else declare(MODULE, statement);
    }
    // `import()` anywhere in the file loads that module whole.
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        const target = this.locate(file, node.arguments[0].text);
        if (target) info.loads.push(target);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return info;
  }

  private readImport(file: string, statement: ts.ImportDeclaration, info: ModuleInfo): void {
    const target = this.locate(file, (statement.moduleSpecifier as ts.StringLiteral).text);
    const clause = statement.importClause;
    if (!clause) {
      if (target) info.loads.push(target);
      return;
    }
    if (clause.isTypeOnly) return;
    if (clause.name) info.imports.set(clause.name.text, { file: target, name: 'default' });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && target) info.loads.push(target);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        if (element.isTypeOnly) continue;
        const name = (element.propertyName ?? element.name).text;
        info.imports.set(element.name.text, { file: target, name });
      }
    }
  }

  private readExport(file: string, statement: ts.ExportDeclaration, info: ModuleInfo): void {
    if (statement.isTypeOnly) return;
    const specifier = statement.moduleSpecifier as ts.StringLiteral | undefined;
    const target = specifier ? this.locate(file, specifier.text) : null;
    const clause = statement.exportClause;
    if (!clause) {
      if (target) info.starExports.push(target);
      return;
    }
    if (!ts.isNamedExports(clause)) return;
    for (const element of clause.elements) {
      if (element.isTypeOnly) continue;
      const name = (element.propertyName ?? element.name).text;
      // `export { a as b }` of a local name is an alias of a declaration or an import here.
      info.reexports.set(element.name.text, target ? { file: target, name } : { file, name });
    }
  }

  /** The workspace file a module specifier names, or null (a package outside the workspace). */
  private locate(from: string, specifier: string): string | null {
    if (specifier.startsWith('.')) {
      const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
      return [`${base}.ts`, join(base, 'index.ts')].find((file) => existsSync(file)) ?? null;
    }
    return this.packages.get(specifier) ?? null;
  }
}

function emptyModule(): ModuleInfo {
  return {
    declarations: new Map(),
    imports: new Map(),
    reexports: new Map(),
    starExports: [],
    loads: [],
  };
}

function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) =>
    ts.isOmittedExpression(element) ? [] : boundNames(element.name),
  );
}

/** `@caravel/<project>[/<sub>]` → its source entry, from each project's package.json. */
function workspaceEntries(root: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const group of ['apps', 'libs']) {
    for (const project of readdirSync(join(root, group))) {
      const manifest = join(root, group, project, 'package.json');
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        exports?: Record<string, { '@caravel/source'?: string }>;
      };
      for (const [path, target] of Object.entries(json.exports ?? {})) {
        const entry = target['@caravel/source'];
        if (!json.name || !entry) continue;
        const name = path === '.' ? json.name : `${json.name}/${path.replace(/^\.\//, '')}`;
        entries.set(name, join(root, group, project, entry));
      }
    }
  }
  return entries;
}

/**
 * The identifiers a declaration uses as values. Types are erased, so they reach nothing, except
 * a constructor parameter's type: Nest injects by it (decorator metadata).
 */
function valueIdentifiers(declaration: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node, injected: boolean): void => {
    if (ts.isHeritageClause(node)) {
      // `extends Base` runs Base; `implements Port` is a type.
      if (node.token === ts.SyntaxKind.ExtendsKeyword)
        node.types.forEach((type) => visit(type.expression, injected));
      return;
    }
    if (ts.isTypeNode(node) && !injected) return;
    if (ts.isIdentifier(node)) {
      const parent = node.parent as ts.Node | undefined;
      const isMemberName =
        parent !== undefined &&
        (ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent)) &&
        parent.name === node;
      if (!isMemberName) names.add(node.text);
      return;
    }
    if (ts.isParameter(node) && ts.isConstructorDeclaration(node.parent)) {
      ts.forEachChild(node, (child) => visit(child, child === node.type));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, injected));
  };
  visit(declaration, false);
  return names;
}
