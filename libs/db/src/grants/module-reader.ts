import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** A module's top-level statements, as the table map follows them. */
export interface ModuleInfo {
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

/** The pseudo-declaration of a module's statements that declare nothing (they run on load). */
export const MODULE = '<module>';

/** A top-level declaration: its module file and name. */
export interface DeclarationRef {
  readonly file: string;
  readonly name: string;
}

/**
 * Reads the workspace's TypeScript modules (parsed once each) and resolves names through
 * imports, `@caravel/*` package entries and re-exports to the declarations they stand for.
 */
export class ModuleReader {
  private readonly modules = new Map<string, ModuleInfo>();
  private readonly packages: Map<string, string>;

  /** `sourceOf`: a file as a type-checked program holds it (its nodes have types), if it does. */
  constructor(
    root: string,
    private readonly sourceOf: (file: string) => ts.SourceFile | undefined = () => undefined,
  ) {
    this.packages = workspaceEntries(root);
  }

  /** Every declaration of a module loaded whole (`import()`, a side-effect import). */
  everything(file: string): { file: string; name: string }[] {
    const info = this.module(file);
    return [...info.declarations.keys(), ...info.reexports.keys()].map((name) => ({ file, name }));
  }

  /** The declarations an exported name stands for, following re-exports. */
  resolve(file: string, name: string, depth = 0): { file: string; name: string }[] {
    if (depth > 32) return [];
    const info = this.module(file);
    if (name === MODULE || info.declarations.has(name)) return [{ file, name }];
    const via = info.reexports.get(name) ?? info.imports.get(name);
    if (via) return via.file ? this.resolve(via.file, via.name, depth + 1) : [];
    return info.starExports.flatMap((star) => this.resolve(star, name, depth + 1));
  }

  module(file: string): ModuleInfo {
    let info = this.modules.get(file);
    if (!info) {
      info = existsSync(file) ? this.parse(file) : emptyModule();
      this.modules.set(file, info);
    }
    return info;
  }

  private parse(file: string): ModuleInfo {
    const source =
      this.sourceOf(file) ??
      ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
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
