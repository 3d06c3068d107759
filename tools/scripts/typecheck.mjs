#!/usr/bin/env node
// Type-checks the workspace (tsconfig.typecheck.json: what `tsc -p tsconfig.typecheck.json
// --noEmit` checks, incrementally, with the same build info), then checks on the same program
// that the table map (libs/db/src/grants/service-tables.ts: which tables each service's
// database role may touch) is still what the code touches. The map's derivation needs the type
// checker (which class each method is called on): in a spec of its own it built a second program
// of the whole workspace, about 70 s of CI's unit stage; here it reuses the checked one.
// Needs the built workspace (tools/scripts/build.mjs) for the derivation's own code.
import { existsSync } from 'node:fs';
import ts from 'typescript';

const root = new URL('../..', import.meta.url).pathname;
const CONFIG = 'tsconfig.typecheck.json';
const MAP = 'libs/db/src/grants/service-tables.ts';

function parsedConfig() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    `${root}${CONFIG}`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        process.stderr.write(`${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}\n`);
        process.exit(2);
      },
    },
  );
  return parsed;
}

/** Every diagnostic tsc would print for the program, in its order. */
function diagnosticsOf(builder, parsed) {
  return [
    ...parsed.errors,
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
    ...builder.getSemanticDiagnostics(),
  ];
}

function print(diagnostics) {
  const host = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  };
  const format = process.stdout.isTTY
    ? ts.formatDiagnosticsWithColorAndContext
    : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, host));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  process.stdout.write(`\nFound ${errors} error${errors === 1 ? '' : 's'} (${CONFIG}).\n`);
}

/** The table map's problems, or none: derived on `program`, compared with the committed map. */
async function tableMapProblems(program) {
  const dist = `${root}libs/db/dist/grants`;
  if (!existsSync(`${dist}/table-map.derive.js`)) {
    return [`${dist} is not built: run node tools/scripts/build.mjs first`];
  }
  const { deriveServiceTables } = await import(`${dist}/table-map.derive.js`);
  const { SERVICE_TABLES, renderServiceTables } = await import(`${dist}/service-tables.js`);
  const { map, problems } = deriveServiceTables(root, Object.keys(SERVICE_TABLES), program);
  if (problems.length > 0) {
    return [`tables that cannot be read off the code:`, ...problems.map((p) => `  ${p}`)];
  }
  if (renderServiceTables(map) === renderServiceTables(SERVICE_TABLES)) return [];
  // A service that starts using a repository whose tables it has no grant for ends here:
  // regenerate, read the diff (is that service meant to touch those tables?) and commit it.
  return [
    `${MAP} is not what the code of each service touches: run npm run db:table-map and read the diff`,
    ...mapDifferences(map, SERVICE_TABLES),
  ];
}

/** Per service and access, the tables the code touches that the map lacks, and the reverse. */
function mapDifferences(derived, committed) {
  const services = [...new Set([...Object.keys(derived), ...Object.keys(committed)])];
  return services.flatMap((service) =>
    ['writes', 'reads'].flatMap((access) => {
      const code = new Set(derived[service]?.[access] ?? []);
      const map = new Set(committed[service]?.[access] ?? []);
      const lines = [];
      const added = [...code].filter((table) => !map.has(table));
      const gone = [...map].filter((table) => !code.has(table));
      if (added.length) lines.push(`  ${service} ${access}, not in the map: ${added.join(', ')}`);
      if (gone.length)
        lines.push(`  ${service} ${access}, no longer in the code: ${gone.join(', ')}`);
      return lines;
    }),
  );
}

const parsed = parsedConfig();
const builder = ts.createIncrementalProgram({
  rootNames: parsed.fileNames,
  options: parsed.options,
  projectReferences: parsed.projectReferences,
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
});
const diagnostics = diagnosticsOf(builder, parsed);
// The build info for the next run (noEmit: nothing else is written).
builder.emit();
if (diagnostics.length > 0) {
  print(diagnostics);
  process.exit(1);
}
const problems = await tableMapProblems(builder.getProgram());
if (problems.length > 0) {
  process.stdout.write(`${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`no type errors; the table map matches the code (${CONFIG})\n`);
