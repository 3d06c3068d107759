import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const root = join(new URL('.', import.meta.url).pathname, '..', '..', '..');
const DOC = 'docs/request-path.md';
const MAX_STEPS = 12;
const MAX_LINES = 500;
/** How deep a step's calls are followed to find the message it sends. */
const CALL_DEPTH = 2;

interface Step {
  number: number;
  file: string;
  /** The step's line (and its continuation lines) as written. */
  text: string;
}

/** The numbered steps under `## The path`: the first backticked path of each is its file. */
function readSteps(markdown: string): Step[] {
  const section = /^## The path\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1] ?? '';
  const steps: Step[] = [];
  for (const item of section.split(/\n(?=\d+\. )/)) {
    const match = /^(\d+)\. `([^`]+)`/.exec(item.trim());
    if (match) steps.push({ number: Number(match[1]), file: match[2]!, text: item });
  }
  return steps;
}

/** `apps/<service>/src` of a path under it. */
function serviceSrc(file: string): string {
  const match = /^(apps\/[^/]+\/src)\//.exec(file);
  if (!match) throw new Error(`${file} is not in a service's src`);
  return match[1]!;
}

function compilerOptions(): ts.CompilerOptions {
  const configFile = join(root, 'tsconfig.base.json');
  const { config } = ts.readConfigFile(configFile, (path) => ts.sys.readFile(path));
  return ts.parseJsonConfigFileContent(config, ts.sys, root).options;
}

/** The files `file` imports (statically), resolved as the compiler resolves them. */
function importsOf(program: ts.Program, file: string): string[] {
  const source = program.getSourceFile(join(root, file));
  if (!source) throw new Error(`${file} is not in the program`);
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier))
      return [];
    const resolved = ts.resolveModuleName(
      statement.moduleSpecifier.text,
      source.fileName,
      program.getCompilerOptions(),
      ts.sys,
    ).resolvedModule?.resolvedFileName;
    return resolved ? [relative(root, resolved)] : [];
  });
}

/**
 * The messages a handler file serves: `X` of each `@ConsumeEvent(X, …)`/`@ServeRequest(X)` (and
 * of a raw `@EventPattern(X.pattern)`/`@MessagePattern(X.pattern)`).
 */
function servedMessages(program: ts.Program, file: string): string[] {
  const served: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const [first] = node.arguments;
      const decorator = node.expression.text;
      if (['ConsumeEvent', 'ServeRequest'].includes(decorator) && first && ts.isIdentifier(first))
        served.push(first.text);
      if (
        ['EventPattern', 'MessagePattern'].includes(decorator) &&
        first &&
        ts.isPropertyAccessExpression(first) &&
        first.name.text === 'pattern' &&
        ts.isIdentifier(first.expression)
      )
        served.push(first.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(program.getSourceFile(join(root, file))!);
  return served;
}

/**
 * Whether `node` names `message`, itself or in the body of a function it calls (workspace code
 * only, `depth` calls deep): how a step sends a message through a client or a helper.
 */
function sends(
  checker: ts.TypeChecker,
  node: ts.Node,
  message: string,
  depth: number,
  seen = new Set<ts.Node>(),
): boolean {
  let found = false;
  const visit = (child: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(child) && child.text === message) {
      found = true;
      return;
    }
    if (depth > 0 && (ts.isCallExpression(child) || ts.isNewExpression(child))) {
      const declaration = checker.getResolvedSignature(child)?.declaration;
      const inWorkspace =
        declaration !== undefined &&
        !ts.isJSDocSignature(declaration) &&
        !declaration.getSourceFile().fileName.includes('/node_modules/');
      if (inWorkspace && !seen.has(declaration)) {
        seen.add(declaration);
        if (sends(checker, declaration, message, depth - 1, seen)) {
          found = true;
          return;
        }
      }
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return found;
}

/** The files a step's line names besides its own (`lease-keeper.ts`, `events/…`). */
function namedFiles(step: Step): string[] {
  return [...step.text.matchAll(/`([\w./-]+\.ts)`/g)]
    .map((match) => match[1]!)
    .filter((name) => name !== step.file);
}

function resolveNamed(step: Step, name: string): string | undefined {
  const candidates = [name, join(dirname(step.file), name), join(serviceSrc(step.file), name)];
  return candidates.find((candidate) => existsSync(join(root, candidate)));
}

const steps = readSteps(readFileSync(join(root, DOC), 'utf8'));

describe(`the request path (${DOC})`, () => {
  let program: ts.Program;

  beforeAll(() => {
    program = ts.createProgram(
      steps.map((step) => join(root, step.file)),
      compilerOptions(),
    );
  });

  it(`lists between 2 and ${MAX_STEPS} steps, numbered in order, each a different file`, () => {
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps.length).toBeLessThanOrEqual(MAX_STEPS);
    expect(steps.map((step) => step.number)).toEqual(steps.map((_step, index) => index + 1));
    expect(new Set(steps.map((step) => step.file)).size).toBe(steps.length);
  });

  it.each(steps.map((step) => [step.number, step.file]))(
    `step %i, %s, is a production source file of a service, under ${MAX_LINES} lines`,
    (_number, file) => {
      expect(file).toMatch(/^apps\/[^/]+\/src\/.+\.ts$/);
      expect(file).not.toMatch(/\.(spec|medium-spec|e2e-spec)\.ts$|\/testing\//);
      expect(existsSync(join(root, file))).toBe(true);
      const lines = readFileSync(join(root, file), 'utf8').split('\n').length;
      expect(lines).toBeLessThanOrEqual(MAX_LINES);
    },
  );

  it.each(steps.map((step) => [step.number, step.file, step]))(
    'step %i, %s, names only files that exist',
    (_number, _file, step) => {
      const missing = namedFiles(step).filter((name) => !resolveNamed(step, name));
      expect(missing).toEqual([]);
    },
  );

  it.each(
    steps.slice(0, -1).map((step, index) => [step.number, step.file, step, steps[index + 1]!]),
  )('step %i, %s, hands the request to the next step', (_number, _file, step, next) => {
    if (serviceSrc(step.file) === serviceSrc(next.file)) {
      expect(importsOf(program, step.file)).toContain(next.file);
      return;
    }
    const checker = program.getTypeChecker();
    const source = program.getSourceFile(join(root, step.file))!;
    const served = servedMessages(program, next.file);
    const sent = served.filter((message) => sends(checker, source, message, CALL_DEPTH));
    expect({ next: next.file, sends: sent }).toEqual({
      next: next.file,
      sends: [expect.any(String)],
    });
    expect(step.text).toContain(`\`${sent[0]}\``);
  });
});
