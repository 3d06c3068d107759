// Structural checks of Helm templates without helm: actions balanced ({{ if/range/with/define }}
// closed by {{ end }}), included templates defined, .Values paths present in values.yaml, and a
// YAML skeleton (each action replaced by a scalar, whole-line actions dropped) that parses.
import { parseAllDocuments } from 'yaml';
import { isRecord } from './deployment-checks.js';

export interface TemplateAction {
  /** The action's text without delimiters, trim markers or surrounding spaces. */
  body: string;
  start: number;
  end: number;
}

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const OPENERS = new Set(['if', 'range', 'with', 'define', 'block']);

export function actionsOf(text: string): TemplateAction[] {
  return [...text.matchAll(ACTION)].map((m) => ({
    body: m[1] ?? '',
    start: m.index,
    end: m.index + m[0].length,
  }));
}

function keywordOf(body: string): string {
  return /^(\w+)/.exec(body)?.[1] ?? '';
}

/** Problems with the nesting of control actions, and with quotes or parentheses inside actions. */
export function structureProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  for (const { body } of actionsOf(text)) {
    if (body.startsWith('/*')) {
      if (!body.endsWith('*/')) problems.push(`${file}: unterminated comment {{${body}}}`);
      continue;
    }
    if (body.includes('{{')) problems.push(`${file}: nested delimiters in {{${body}}}`);
    const unquoted = body.replace(/"(?:[^"\\]|\\.)*"/g, 'S');
    if (unquoted.includes('"')) problems.push(`${file}: unbalanced quote in {{${body}}}`);
    if ((unquoted.match(/\(/g) ?? []).length !== (unquoted.match(/\)/g) ?? []).length) {
      problems.push(`${file}: unbalanced parentheses in {{${body}}}`);
    }
    const keyword = keywordOf(body);
    if (OPENERS.has(keyword)) stack.push(keyword);
    else if (keyword === 'else' && !['if', 'with', 'range'].includes(stack.at(-1) ?? '')) {
      problems.push(`${file}: {{ else }} outside if/with/range`);
    } else if (keyword === 'end' && stack.pop() === undefined)
      problems.push(`${file}: {{ end }} without an opener`);
  }
  if (stack.length > 0) problems.push(`${file}: ${stack.join(', ')} not closed by {{ end }}`);
  const stray = text.replace(ACTION, '');
  if (stray.includes('{{') || stray.includes('}}'))
    problems.push(`${file}: stray template delimiter`);
  return problems;
}

export function definedTemplates(text: string): string[] {
  return actionsOf(text)
    .map((a) => /^define\s+"([^"]+)"/.exec(a.body)?.[1])
    .filter((name): name is string => name !== undefined);
}

export function usedTemplates(text: string): string[] {
  return actionsOf(text).flatMap((a) =>
    [...a.body.matchAll(/\b(?:include|template)\s+"([^"]+)"/g)].map((m) => m[1]!),
  );
}

/** `.Values.a.b` / `$.Values.a.b` paths that values.yaml does not have. */
export function missingValuePaths(file: string, text: string, values: unknown): string[] {
  const problems: string[] = [];
  for (const { body } of actionsOf(text)) {
    for (const match of body.matchAll(/(?:^|[\s($])\.Values((?:\.\w+)+)/g)) {
      const path = match[1]!.slice(1).split('.');
      let node: unknown = values;
      for (const key of path) {
        if (!isRecord(node) || !(key in node)) {
          problems.push(`${file}: .Values.${path.join('.')} is not in values.yaml`);
          break;
        }
        node = node[key];
      }
    }
  }
  return problems;
}

/** The template with whole-line actions removed and inline actions replaced by a scalar. */
export function yamlSkeleton(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.replace(ACTION, '').trim() !== '' || line.trim() === '')
    .map((line) => line.replace(ACTION, 'x'))
    .join('\n');
}

/**
 * Problems parsing the skeleton as a stream of YAML documents. Keys may repeat: the branches of
 * an `{{ if }}…{{ else }}` both stay in the skeleton.
 */
export function skeletonProblems(file: string, text: string): string[] {
  return Array.from(parseAllDocuments(yamlSkeleton(text), { uniqueKeys: false })).flatMap((doc) =>
    doc.errors.map((error) => `${file}: skeleton is not YAML: ${error.message}`),
  );
}
