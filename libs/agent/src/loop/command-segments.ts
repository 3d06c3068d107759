const HEREDOC = /^<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1/;
const OPERATORS = ['&&', '||', ';;', ';', '|', '&'];

interface ScanState {
  segments: string[];
  current: string;
  quote: "'" | '"' | null;
  heredocs: string[];
}

function flush(state: ScanState): void {
  const segment = state.current.trim();
  if (segment !== '') state.segments.push(segment);
  state.current = '';
}

/** Skips the bodies of the heredocs opened on the line that ends at `newline`; returns the next index. */
function skipHeredocBodies(text: string, newline: number, delimiters: readonly string[]): number {
  let index = newline + 1;
  for (const delimiter of delimiters) {
    while (index < text.length) {
      const end = text.indexOf('\n', index);
      const line = end === -1 ? text.slice(index) : text.slice(index, end);
      index = end === -1 ? text.length : end + 1;
      if (line.trim() === delimiter) break;
    }
  }
  return index;
}

/** `2>&1`, `&>file`, `>&2`, `>|file`: redirections, not command separators. */
function isRedirection(text: string, index: number): boolean {
  const before = text[index - 1];
  const char = text[index];
  if (char === '&') return before === '>' || before === '<' || text[index + 1] === '>';
  return char === '|' && before === '>';
}

/** Handles one character outside quotes; returns the index to continue from. */
function scanUnquoted(text: string, index: number, state: ScanState): number {
  const char = text[index] ?? '';
  if (char === "'" || char === '"') {
    state.quote = char;
  } else if (char === '\\') {
    state.current += text.slice(index, index + 2);
    return index + 2;
  } else if (char === '\n') {
    flush(state);
    const next = skipHeredocBodies(text, index, state.heredocs);
    state.heredocs = [];
    return next;
  } else if (char === '<') {
    const herestring = text[index - 1] === '<' || text[index + 2] === '<';
    const heredoc = herestring ? null : HEREDOC.exec(text.slice(index));
    if (heredoc?.[2] !== undefined) state.heredocs.push(heredoc[2]);
  } else {
    const operator = OPERATORS.find((op) => text.startsWith(op, index));
    if (operator !== undefined && !isRedirection(text, index)) {
      flush(state);
      return index + operator.length;
    }
  }
  state.current += char;
  return index + 1;
}

/**
 * Splits a shell action into the simple commands it runs: at `&&`, `||`, `;`, `|`, `&` and line
 * breaks outside quotes, leaving heredoc bodies out (they are data, not commands). This is a
 * conservative lexer for policy checks, not a bash parser: `$(...)` and backticks stay inside
 * their segment.
 */
export function splitCommandSegments(action: string): string[] {
  const state: ScanState = { segments: [], current: '', quote: null, heredocs: [] };
  let index = 0;
  while (index < action.length) {
    const char = action[index] ?? '';
    if (state.quote === null) {
      index = scanUnquoted(action, index, state);
      continue;
    }
    if (char === '\\' && state.quote === '"') {
      state.current += action.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (char === state.quote) state.quote = null;
    state.current += char;
    index += 1;
  }
  flush(state);
  return state.segments;
}
