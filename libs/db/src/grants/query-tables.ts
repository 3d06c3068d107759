import ts from 'typescript';
import { LANGGRAPH_TABLES } from './service-tables.types.js';

/** The tables a piece of code reads and writes (a lock counts as a write: it needs UPDATE). */
export interface QueryTables {
  reads: Set<string>;
  writes: Set<string>;
  /** Set when the code reaches the database in a way no table can be read off. */
  unmapped?: string;
}

const READS = new Set([
  'selectFrom',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'from',
  'using',
]);
const WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']);
const LOCKS = new Set(['forUpdate', 'forNoKeyUpdate', 'forShare', 'forKeyShare']);

const SQL_READ = /\b(?:from|join|using)\s+"?([a-z_][a-z0-9_]*)/g;
const SQL_WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+"?([a-z_][a-z0-9_]*)/g;
const SQL_LOCK = /\bfor\s+(?:no\s+key\s+)?(?:update|share|key\s+share)\b/;

/** `'runs'`, `'runs as r'`, `['runs', 'threads as t']`: the tables named. */
function namedTables(argument: ts.Expression | undefined): string[] {
  if (!argument) return [];
  if (ts.isStringLiteralLike(argument)) return [argument.text.split(/\s+as\s+/)[0]?.trim() ?? ''];
  if (ts.isArrayLiteralExpression(argument)) return argument.elements.flatMap(namedTables);
  return [];
}

function templateText(template: ts.TemplateLiteral): string {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return template.text;
  return [template.head.text, ...template.templateSpans.map((span) => span.literal.text)].join(
    ' ? ',
  );
}

/**
 * Reads the tables off Kysely calls (`selectFrom('runs')`, joins, `insertInto`, …) and `sql`
 * templates (`from`/`join`/`insert into`/`update`/`delete from`). A function that locks rows
 * (`forUpdate()`, `for update`) writes every table it reads: PostgreSQL asks UPDATE for a lock.
 * Names that are not tables (CTEs, aliases) are dropped. LangGraph's checkpointer is recognised
 * by name; any other use of `connectionString()` hands the database to code this cannot read.
 */
export function queryTables(root: ts.Node, tables: ReadonlySet<string>): QueryTables {
  const found: QueryTables = { reads: new Set(), writes: new Set() };
  const add = (into: Set<string>, names: Iterable<string>) => {
    for (const name of names) if (tables.has(name)) into.add(name);
  };
  let usesSaver = false;
  let connects = false;
  const visitFunction = (fn: ts.Node): void => {
    const reads = new Set<string>();
    let locks = false;
    const visit = (node: ts.Node): void => {
      if (node !== fn && ts.isFunctionLike(node)) return visitFunction(node);
      if (ts.isIdentifier(node) && node.text === 'PostgresSaver') usesSaver = true;
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        if (READS.has(method)) add(reads, namedTables(node.arguments[0]));
        if (WRITES.has(method)) add(found.writes, namedTables(node.arguments[0]));
        if (LOCKS.has(method)) locks = true;
        if (method === 'connectionString') connects = true;
      }
      if (ts.isTaggedTemplateExpression(node)) {
        const text = templateText(node.template).toLowerCase();
        add(
          reads,
          [...text.matchAll(SQL_READ)].map((match) => match[1] ?? ''),
        );
        add(
          found.writes,
          [...text.matchAll(SQL_WRITE)].map((match) => match[1] ?? ''),
        );
        if (SQL_LOCK.test(text)) locks = true;
      }
      ts.forEachChild(node, visit);
    };
    visit(fn);
    add(locks ? found.writes : found.reads, reads);
  };
  visitFunction(root);
  if (usesSaver) add(found.writes, LANGGRAPH_TABLES);
  else if (connects) found.unmapped = 'connectionString() hands the database to another client';
  return found;
}
