import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { MODULE, ModuleReader, type DeclarationRef } from './module-reader.js';
import { LANGGRAPH_TABLES, MIGRATIONS_TABLE, type TableUse } from './service-tables.types.js';
import { isRepositoryKey, Types } from './member-types.js';
import { queryTables } from './query-tables.js';

/**
 * Derives which tables each service's process can touch from the code: from the service's
 * `main.ts`, every top-level declaration it can reach (through imports, `@caravel/*` entries and
 * re-exports, Nest's constructor injection), and the tables their queries name (Kysely's
 * `selectFrom`/`insertInto`/…, `sql` templates). A table only read stays a read; one written,
 * or locked (`for update`), is a write. Used by the workspace's typecheck (the checked-in map
 * must equal it: tools/scripts/typecheck.mjs) and `npm run db:table-map` (writes it).
 */
export function deriveServiceTables(
  root: string,
  services: readonly string[],
  program?: ts.Program,
): { map: Record<string, TableUse>; problems: string[] } {
  const entry = (service: string): DeclarationRef => {
    const own = SERVICE_ENTRIES[service];
    return own
      ? { file: join(root, own.file), name: own.name }
      : { file: join(root, 'apps', service, 'src', 'main.ts'), name: MODULE };
  };
  const files = services.map((service) => entry(service).file);
  const graph = new ServiceReach(
    root,
    knownTables(root),
    // One type-checked program for every service: which class a method is called on. A given one
    // (the workspace's typecheck's, tools/scripts/typecheck.mjs) must hold every entry.
    program ?? ts.createProgram({ rootNames: files, options: compilerOptions(root) }),
  );
  const map: Record<string, TableUse> = {};
  const problems: string[] = [];
  for (const service of services) {
    const use = graph.reach(entry(service));
    map[service] = {
      writes: [...use.writes].sort(),
      reads: [...use.reads].filter((table) => !use.writes.has(table)).sort(),
    };
    problems.push(...use.unmapped.map((where) => `${service}: ${where}`));
  }
  return { map, problems };
}

/**
 * Where a process with a role of its own starts when it is not a service's `main.ts` (whose
 * top-level statements start it): the eval scheduler is a command of the CLI, `caravel eval
 * scheduler`, which runs `runEvalScheduler`.
 */
const SERVICE_ENTRIES: Readonly<Record<string, DeclarationRef>> = {
  evals: {
    file: 'apps/cli/src/commands/eval/schedule/eval-scheduler.command.ts',
    name: 'runEvalScheduler',
  },
};

/**
 * Declarations a service's process reaches in code but never runs on its role's connection, so
 * not followed: the migration runner (DATABASE_MIGRATE=true needs the owner's URL anyway; with
 * false a service only checks, see checkMigrated); and the eval scheduler's nights, which run on
 * databases of their own: each attempt of a suite is `caravel run`'s task (`runTask`: the
 * embedded platform on a PGlite in the attempt's folder), each case of a review set is reviewed
 * on an in-memory PGlite (`reviewCase`). What a night records (its run, attempts and cases) is
 * written by the scheduler's own code, on its role.
 */
const NOT_ON_ROLE = new Set([
  'libs/db/src/migrations/migration-runner.ts#migrate',
  'apps/cli/src/commands/run.command.ts#runTask',
  'apps/cli/src/commands/review-eval/review-case.ts#reviewCase',
]);

/** The tables of the schema (`DB`'s keys), the runner's own and LangGraph's checkpointer's. */
function knownTables(root: string): Set<string> {
  const types = readFileSync(join(root, 'libs/db/src/generated/types.ts'), 'utf8');
  const body = /export type DB = \{([^}]*)\}/.exec(types)?.[1] ?? '';
  const tables = [...body.matchAll(/^\s*(\w+):/gm)].map((match) => match[1] ?? '');
  return new Set([...tables, MIGRATIONS_TABLE, ...LANGGRAPH_TABLES]);
}

interface Reached {
  reads: Set<string>;
  writes: Set<string>;
  unmapped: string[];
}

class ServiceReach {
  private readonly reader: ModuleReader;
  private readonly types: Types;

  constructor(
    private readonly root: string,
    private readonly tables: ReadonlySet<string>,
    program: ts.Program,
  ) {
    this.types = new Types(root, program, program.getTypeChecker());
    this.reader = new ModuleReader(root, (file) => program.getSourceFile(file));
  }

  /** The tables every declaration reachable from `entry` (a module's statements, or one declaration) touches. */
  reach(entry: DeclarationRef): Reached {
    const walk = new Walk(this.root, this.tables, this.reader, this.types);
    walk.declaration(entry);
    return walk.run();
  }
}

/** The workspace's compiler options (tsconfig.typecheck.json), or the defaults without one. */
function compilerOptions(root: string): ts.CompilerOptions {
  const file = join(root, 'tsconfig.typecheck.json');
  if (!existsSync(file)) return {};
  const config = ts.getParsedCommandLineOfConfigFile(
    file,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  return config?.options ?? {};
}

/** A piece of code to read: a declaration, or one member of a repository class. */
interface Unit {
  readonly file: string;
  readonly key: string;
  readonly node: ts.Node;
}

/**
 * One service's walk. A class of `libs/db` (a repository) is read member by member: its
 * constructor, fields and decorators when it is reached, each method only once reached code
 * calls it on that class, as the type checker sees the receiver (`this.threads.get(…)` with
 * `threads: ThreadRepository`). A receiver of unknown type (any, a type parameter, a file
 * outside the program) counts for every class with such a method but a `private` one (which only
 * its class, through `this`, can call), so a service that only reads
 * through a repository is not granted its writes, and none is granted less than it calls.
 */
class Walk {
  readonly reached: Reached = { reads: new Set(), writes: new Set(), unmapped: [] };
  private readonly seen = new Set<string>();
  private readonly declarations: DeclarationRef[] = [];
  private readonly units: Unit[] = [];
  /** `<class key>.<method>` called, and method names called on a receiver of unknown type. */
  private readonly called = new Set<string>();
  private readonly calledOnAny = new Set<string>();
  /** Methods of reached repository classes not called yet, by `<class key>.<method>`. */
  private readonly waiting = new Map<string, Unit[]>();
  /** Those of them that are `private`: only their class calls them, always through a typed `this`. */
  private readonly privateMethods = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly tables: ReadonlySet<string>,
    private readonly reader: ModuleReader,
    private readonly types: Types,
  ) {}

  declaration(ref: DeclarationRef): void {
    this.declarations.push(ref);
  }

  run(): Reached {
    for (;;) {
      const unit = this.units.pop();
      if (unit) this.read(unit);
      else {
        const next = this.declarations.pop();
        if (!next) return this.reached;
        this.open(next);
      }
    }
  }

  private open(next: DeclarationRef): void {
    for (const ref of this.reader.resolve(next.file, next.name)) {
      const key = `${relative(this.root, ref.file)}#${ref.name}`;
      if (this.seen.has(key) || NOT_ON_ROLE.has(key)) continue;
      this.seen.add(key);
      const info = this.reader.module(ref.file);
      if (ref.name === MODULE) info.loads.forEach((file) => this.loadWhole(file));
      else this.declaration({ file: ref.file, name: MODULE });
      for (const node of info.declarations.get(ref.name) ?? []) {
        if (ts.isClassDeclaration(node) && isRepositoryKey(key)) this.split(ref.file, key, node);
        else this.units.push({ file: ref.file, key, node });
      }
    }
  }

  private loadWhole(file: string): void {
    this.reader.everything(file).forEach((ref) => this.declaration(ref));
  }

  /** A repository class: what runs when it is constructed now, each method once called. */
  private split(file: string, key: string, node: ts.ClassDeclaration): void {
    const shell = [...(ts.getDecorators(node) ?? []), ...(node.heritageClauses ?? [])];
    for (const part of shell) this.units.push({ file, key, node: part });
    for (const member of node.members) {
      const name = member.name && ts.isIdentifier(member.name) ? member.name.text : null;
      const unit = { file, key: `${key}.${name ?? '[member]'}`, node: member };
      const method = ts.isMethodDeclaration(member) || ts.isAccessor(member);
      const hidden =
        method && (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Private) !== 0;
      if (hidden) this.privateMethods.add(unit.key);
      const onAny = !hidden && name !== null && this.calledOnAny.has(name);
      if (!method || name === null || this.called.has(unit.key) || onAny) this.units.push(unit);
      else this.waiting.set(unit.key, [...(this.waiting.get(unit.key) ?? []), unit]);
    }
  }

  private read(unit: Unit): void {
    const used = queryTables(unit.node, this.tables);
    used.reads.forEach((table) => this.reached.reads.add(table));
    used.writes.forEach((table) => this.reached.writes.add(table));
    if (used.unmapped) this.reached.unmapped.push(`${unit.key} (${used.unmapped})`);
    const info = this.reader.module(unit.file);
    for (const name of valueIdentifiers(unit.node)) {
      if (info.declarations.has(name)) this.declaration({ file: unit.file, name });
      const imported = info.imports.get(name);
      if (imported?.file) this.declaration({ file: imported.file, name: imported.name });
    }
    for (const { name, access } of memberUses(unit.node)) {
      if (!this.types.isMethodName(name)) continue;
      const members = access && this.types.typed(unit.file) ? this.types.membersAt(access) : '*';
      if (members === '*') this.callOnAny(name);
      else members.forEach((member) => this.call(member));
    }
  }

  private call(member: string): void {
    if (this.called.has(member)) return;
    this.called.add(member);
    this.units.push(...(this.waiting.get(member) ?? []));
    this.waiting.delete(member);
  }

  private callOnAny(name: string): void {
    if (this.calledOnAny.has(name)) return;
    this.calledOnAny.add(name);
    // A receiver of unknown type is outside the class: it cannot call a private method.
    for (const member of [...this.waiting.keys()])
      if (member.endsWith(`.${name}`) && !this.privateMethods.has(member)) this.call(member);
  }
}

/**
 * The members a piece of code uses: `x.name` (resolved by the checker); `x['name']` and
 * `const { name } = x` count for any class.
 */
function memberUses(root: ts.Node): { name: string; access: ts.PropertyAccessExpression | null }[] {
  const uses: { name: string; access: ts.PropertyAccessExpression | null }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) uses.push({ name: node.name.text, access: node });
    else if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression))
      uses.push({ name: node.argumentExpression.text, access: null });
    else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const property = node.propertyName ?? node.name;
      if (ts.isIdentifier(property)) uses.push({ name: property.text, access: null });
    }
    ts.forEachChild(node, visit);
  };
  visit(root);
  return uses;
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
