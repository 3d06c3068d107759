/** One line of a unified diff: an addition, a removal, context, a hunk header, or file metadata. */
export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'hunk' | 'meta';
  /** The line without its marker (the hunk header and metadata lines whole). */
  text: string;
}

/** One file's part of a unified diff. */
export interface DiffFile {
  path: string;
  lines: DiffLine[];
}

const MARKERS: Record<string, DiffLine['kind']> = { '+': 'add', '-': 'del', ' ': 'ctx' };

/** Splits a unified diff (`git diff` output) by file, each line marked by its kind. */
export function parseUnifiedDiff(patch: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let inHunk = false;
  for (const line of patch.replace(/\n$/, '').split('\n')) {
    const header = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
    if (header || !file || (!inHunk && line.startsWith('--- ') && file.lines.length > 0)) {
      if (header || !file || file.lines.some((l) => l.kind === 'hunk')) {
        file = { path: header?.[2] ?? '', lines: [] };
        files.push(file);
        inHunk = false;
      }
    }
    if (line.startsWith('@@')) {
      inHunk = true;
      file.lines.push({ kind: 'hunk', text: line });
      continue;
    }
    const kind = inHunk ? MARKERS[line[0] ?? ' '] : undefined;
    if (kind) file.lines.push({ kind, text: line.slice(1) });
    else {
      if (!inHunk && line.startsWith('+++ ') && !line.endsWith('/dev/null'))
        file.path = line.slice(4).replace(/^b\//, '');
      file.lines.push({ kind: 'meta', text: line });
    }
  }
  return files;
}

/** A patch cut after its first `lines` lines: those, the rest, and how many lines the rest holds. */
export function splitPatch(
  patch: string,
  lines: number,
): { head: string; rest: string; restLines: number } {
  let at = -1;
  for (let line = 0; line < lines; line += 1) {
    at = patch.indexOf('\n', at + 1);
    if (at === -1) return { head: patch, rest: '', restLines: 0 };
  }
  const rest = patch.slice(at + 1).replace(/\n$/, '');
  return { head: patch.slice(0, at), rest, restLines: rest === '' ? 0 : rest.split('\n').length };
}

const LANGUAGES: Record<string, string> = {
  ts: 'tsx',
  tsx: 'tsx',
  mts: 'tsx',
  cts: 'tsx',
  js: 'jsx',
  jsx: 'jsx',
  mjs: 'jsx',
  cjs: 'jsx',
  py: 'python',
  go: 'go',
  rs: 'rust',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  md: 'markdown',
  css: 'css',
  html: 'markup',
  xml: 'markup',
  svg: 'markup',
  sql: 'sql',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  swift: 'swift',
  kt: 'kotlin',
  kts: 'kotlin',
  graphql: 'graphql',
  gql: 'graphql',
  coffee: 'coffeescript',
};

/** The highlighter's language for a path, by its extension ('plain' when it has none it knows). */
export function languageOf(path: string): string {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  return LANGUAGES[extension] ?? 'plain';
}
