// Splits prisma-kysely's one types file into a file per group of tables and an index, so no
// generated file grows past STYLE.md's 500 lines as the schema grows (one file was ~1,000).
import ts from 'typescript';

/**
 * Each generated file's tables (their Kysely type names), by what they are for. A new model must
 * be placed here: generation refuses a table in no group rather than guessing where it belongs.
 */
export const TABLE_GROUPS = {
  threads: {
    about: 'webhook deliveries, threads, their runs and follow-ups, run events, sandboxes, plans',
    tables: [
      'Delivery',
      'SlackMessage',
      'Thread',
      'ThreadOwner',
      'ThreadPlan',
      'ThreadStop',
      'TriggerRefusal',
      'Run',
      'RunEvent',
      'RunNotice',
      'RunQueueEntry',
      'ThreadMessage',
      'ThreadWakeup',
      'Sandbox',
      'RetiredSandbox',
    ],
  },
  messaging: {
    about: "reliable messaging: the inbox, the outbox, leases and the embedded bus's log",
    tables: [
      'InboxEntry',
      'OutboxEntry',
      'Lease',
      'BusMessage',
      'BusConsumer',
      'BusDelivery',
      'BusDeadLetter',
    ],
  },
  people: {
    about:
      'people, their credentials, tokens, sign-in pins and dashboard sessions, profiles and instructions; Connect tenants',
    tables: [
      'Identity',
      'UserToken',
      'UserProfile',
      'UserInstructions',
      'PersonalToken',
      'SignInPin',
      'DashboardSession',
      'ConnectTenant',
    ],
  },
  settings: {
    about: "the team's and repositories' settings: defaults, budgets, instructions, enabling",
    tables: [
      'TeamDefaults',
      'BudgetLimit',
      'BudgetPause',
      'RepositoryInstructions',
      'EnabledRepository',
    ],
  },
  reviews: {
    about: "pull requests: the reviewer's ledger and findings, learned styles, CI babysitting",
    tables: ['ReviewLedger', 'LedgerFinding', 'PullRequestHead', 'ReviewStyle', 'CiWatch'],
  },
  evals: {
    about: 'eval runs, their attempts and review cases, schedules and gated proposals',
    tables: ['EvalRun', 'EvalAttempt', 'EvalReviewCase', 'EvalSchedule', 'EvalProposal'],
  },
};

/** The index: it re-exports every file and declares `DB`, so importers see one module. */
export const INDEX_FILE = 'types.ts';
/** What the tables' column types share (prisma-kysely's `Generated`, `Timestamp`). */
const COLUMNS_FILE = 'columns.ts';
const tablesFile = (group) => `${group}.tables.ts`;

/** The generated files' names, the index first. */
export function generatedFileNames() {
  return [INDEX_FILE, COLUMNS_FILE, ...Object.keys(TABLE_GROUPS).map(tablesFile)];
}

/**
 * `source` (prisma-kysely's file, without the header) as a map of file name to content, each
 * starting with `header`. The index exports the same names as `source` did.
 */
export function splitTypesByGroup(source, header) {
  const file = ts.createSourceFile('types.ts', source, ts.ScriptTarget.Latest, true);
  const imports = file.statements.filter(ts.isImportDeclaration);
  const types = file.statements.filter(ts.isTypeAliasDeclaration);
  const other = file.statements.find(
    (s) => !ts.isImportDeclaration(s) && !ts.isTypeAliasDeclaration(s),
  );
  if (other) throw new Error(`unexpected statement in prisma-kysely's output: ${other.getText()}`);
  const db = types.find((t) => t.name.text === 'DB');
  if (!db) throw new Error("prisma-kysely's output has no DB type");
  const tableNames = tablesOf(db);
  const groupOf = groupsByTable(tableNames);
  const helperNames = types
    .map((t) => t.name.text)
    .filter((n) => n !== 'DB' && !tableNames.includes(n));
  const helpers = { file: COLUMNS_FILE, names: helperNames };
  const pick = (names) => types.filter((t) => names.includes(t.name.text));

  const files = new Map([[COLUMNS_FILE, render(header, '', pick(helperNames), imports, [])]]);
  for (const [group, { about }] of Object.entries(TABLE_GROUPS)) {
    const tables = pick(tableNames.filter((name) => groupOf.get(name) === group));
    const intro = `// The tables of ${about}.\n`;
    files.set(tablesFile(group), render(header, intro, tables, imports, [helpers]));
  }
  const reExports = generatedFileNames()
    .filter((name) => name !== INDEX_FILE)
    .map((name) => `export * from '${moduleOf(name)}';\n`)
    .join('');
  const tablesByFile = Object.keys(TABLE_GROUPS).map((group) => ({
    file: tablesFile(group),
    names: tableNames.filter((name) => groupOf.get(name) === group),
  }));
  files.set(INDEX_FILE, render(header, `${reExports}\n`, [db], [], tablesByFile));
  return files;
}

const moduleOf = (file) => `./${file.replace(/\.ts$/, '.js')}`;

/** The table types `DB` names, in its order (`threads: Thread;` -> `Thread`). */
function tablesOf(db) {
  if (!ts.isTypeLiteralNode(db.type)) throw new Error('DB is not an object type');
  return db.type.members.map((member) => {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isTypeReferenceNode(member.type)) {
      throw new Error(`unexpected DB member: ${member.getText()}`);
    }
    return member.type.typeName.getText();
  });
}

/** Each table's group; refuses a table in no group, in two, or a group naming a gone table. */
function groupsByTable(tableNames) {
  const groupOf = new Map();
  for (const [group, { tables }] of Object.entries(TABLE_GROUPS)) {
    for (const table of tables) {
      if (groupOf.has(table))
        throw new Error(`${table} is in two groups: ${groupOf.get(table)}, ${group}`);
      groupOf.set(table, group);
    }
  }
  const unplaced = tableNames.filter((name) => !groupOf.has(name));
  const gone = [...groupOf.keys()].filter((name) => !tableNames.includes(name));
  if (unplaced.length > 0 || gone.length > 0) {
    throw new Error(
      `tools/codegen/db/table-groups.mjs: ${[
        ...unplaced.map((name) => `put ${name} in a group of TABLE_GROUPS`),
        ...gone.map((name) => `TABLE_GROUPS names ${name}, which the schema no longer has`),
      ].join('; ')}`,
    );
  }
  return groupOf;
}

/**
 * A generated file: `header`, the imports its declarations use — prisma-kysely's own (the states
 * banner, kysely's ColumnType) and sibling files' names (`siblings`: { file, names }) — `intro`,
 * then the declarations with their doc comments, as prisma-kysely wrote them.
 */
function render(header, intro, declarations, imports, siblings) {
  const used = new Set(declarations.flatMap(identifiersOf));
  const importLines = [
    ...imports.filter((i) => boundNames(i).some((n) => used.has(n))).map((i) => i.getText()),
    ...siblings
      .map(({ file, names }) => ({ file, names: names.filter((n) => used.has(n)) }))
      .filter(({ names }) => names.length > 0)
      .map(({ file, names }) => typeImport(names, moduleOf(file))),
  ];
  const body = declarations.map((d) => d.getFullText().replace(/^\n+/, '')).join('\n');
  const head = importLines.length > 0 ? `${importLines.join('\n')}\n\n` : '';
  return `${header}${head}${intro}${body.trimEnd()}\n`;
}

/** `import type { …names } from 'module';`, sorted, one name a line when one line is too long. */
function typeImport(names, module) {
  const sorted = [...names].sort();
  const line = `import type { ${sorted.join(', ')} } from '${module}';`;
  if (line.length <= 100) return line;
  return `import type {\n${sorted.map((name) => `  ${name},\n`).join('')}} from '${module}';`;
}

/** Every identifier in a declaration's type (not in its comments): what it may need imported. */
function identifiersOf(declaration) {
  const names = [];
  const visit = (node) => {
    if (ts.isIdentifier(node)) names.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(declaration.type);
  return names;
}

/** The local names an import declaration binds (`* as State` -> State, `{ ColumnType }`). */
function boundNames(declaration) {
  const clause = declaration.importClause;
  if (!clause) return [];
  const bindings = clause.namedBindings;
  return [
    ...(clause.name ? [clause.name.text] : []),
    ...(bindings && ts.isNamespaceImport(bindings) ? [bindings.name.text] : []),
    ...(bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : []),
  ];
}
