/**
 * One simple command of a shell script, after quote removal: its words (redirections left out)
 * and what it reads on standard input from here-documents and here-strings.
 */
export interface ShellCommand {
  words: string[];
  stdin: string[];
}

const BLANK = new Set([' ', '\t']);
/** Characters that end an unquoted word. */
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const REDIRECTIONS = ['<<<', '<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'];
const ANSI_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

interface Word {
  text: string;
  end: number;
}

/**
 * A shell-word lexer for policy checks: splits `script` into its simple commands the way bash
 * would read them (single, double and `$'...'` quotes, backslash escapes, line continuations,
 * comments, `;` `&&` `||` `|` `&` `(` `)` and newlines, redirections, here-documents) and adds
 * the commands found inside `$(...)`, backticks and `<(...)` as commands of their own. It never
 * expands variables or runs anything; an unterminated quote runs to the end of the text.
 */
export function parseShellCommands(script: string): ShellCommand[] {
  return new ShellLexer(script).parse();
}

class ShellLexer {
  private readonly commands: ShellCommand[] = [];
  private readonly nested: ShellCommand[] = [];
  private current: ShellCommand = { words: [], stdin: [] };
  private heredocs: { delimiter: string; stripTabs: boolean; command: ShellCommand }[] = [];

  constructor(private readonly text: string) {}

  parse(): ShellCommand[] {
    let i = 0;
    while (i < this.text.length) i = this.step(i);
    this.endCommand();
    return [...this.commands, ...this.nested];
  }

  private step(i: number): number {
    const text = this.text;
    const char = text[i] ?? '';
    if (BLANK.has(char)) return i + 1;
    if (char === '\\' && text[i + 1] === '\n') return i + 2;
    if (char === '\n') {
      this.endCommand();
      return this.readHeredocBodies(i + 1);
    }
    if (char === '#') {
      const newline = text.indexOf('\n', i);
      return newline === -1 ? text.length : newline;
    }
    if ((char === '<' || char === '>') && text[i + 1] === '(') {
      return this.appendWord(i);
    }
    if (char === '<' || char === '>' || (char === '&' && text[i + 1] === '>')) {
      return this.redirection(i);
    }
    if (char === ';' || char === '&' || char === '|' || char === '(' || char === ')') {
      this.endCommand();
      const pair = text.slice(i, i + 2);
      return ['&&', '||', ';;', '|&'].includes(pair) ? i + 2 : i + 1;
    }
    return this.appendWord(i);
  }

  private appendWord(i: number): number {
    const word = this.readWord(i);
    this.current.words.push(word.text);
    return word.end;
  }

  private endCommand(): void {
    if (this.current.words.length > 0) this.commands.push(this.current);
    this.current = { words: [], stdin: [] };
  }

  /** A redirection and its target; the target is never a word of the command. */
  private redirection(start: number): number {
    const words = this.current.words;
    const last = words[words.length - 1];
    // `2>&1`: a file descriptor written against the operator belongs to it.
    if (last !== undefined && /^\d+$/.test(last) && !BLANK.has(this.text[start - 1] ?? ' ')) {
      words.pop();
    }
    let i = start;
    if (this.text[i] === '&') i += 1;
    const operator = REDIRECTIONS.find((op) => this.text.startsWith(op, i)) ?? '>';
    i += operator.length;
    while (BLANK.has(this.text[i] ?? '')) i += 1;
    if (i >= this.text.length || META.has(this.text[i] ?? '')) return i;
    const target = this.readWord(i);
    if (operator === '<<<') this.current.stdin.push(target.text);
    if (operator === '<<' || operator === '<<-') {
      this.heredocs.push({
        delimiter: target.text,
        stripTabs: operator === '<<-',
        command: this.current,
      });
    }
    return target.end;
  }

  private readHeredocBodies(start: number): number {
    let i = start;
    for (const heredoc of this.heredocs) {
      const lines: string[] = [];
      while (i < this.text.length) {
        const newline = this.text.indexOf('\n', i);
        const end = newline === -1 ? this.text.length : newline;
        const line = this.text.slice(i, end);
        i = end + 1;
        const compared = heredoc.stripTabs ? line.replace(/^\t+/, '') : line;
        if (compared === heredoc.delimiter) break;
        lines.push(compared);
      }
      heredoc.command.stdin.push(lines.join('\n'));
    }
    this.heredocs = [];
    return Math.min(i, this.text.length);
  }

  /** Reads one word from `start`, quotes removed, substitutions kept as written. */
  private readWord(start: number): Word {
    const text = this.text;
    let out = '';
    let i = start;
    while (i < text.length) {
      const char = text[i] ?? '';
      if (META.has(char) && !((char === '<' || char === '>') && text[i + 1] === '(' && i === start))
        break;
      const substituted = this.substitutionEnd(i, true);
      if (substituted !== undefined) {
        out += text.slice(i, substituted);
        i = substituted;
      } else if (char === '\\') {
        if (text[i + 1] !== '\n') out += text[i + 1] ?? '';
        i += 2;
      } else if (char === "'") {
        const close = text.indexOf("'", i + 1);
        const end = close === -1 ? text.length : close;
        out += text.slice(i + 1, end);
        i = end + 1;
      } else if (char === '$' && text[i + 1] === "'") {
        const quoted = readAnsiC(text, i + 2);
        out += quoted.text;
        i = quoted.end;
      } else if (char === '"' || (char === '$' && text[i + 1] === '"')) {
        const quoted = this.readDoubleQuoted(char === '$' ? i + 2 : i + 1);
        out += quoted.text;
        i = quoted.end;
      } else {
        out += char;
        i += 1;
      }
    }
    return { text: out, end: i };
  }

  private readDoubleQuoted(start: number): Word {
    const text = this.text;
    let out = '';
    let i = start;
    while (i < text.length && text[i] !== '"') {
      const char = text[i] ?? '';
      const next = text[i + 1] ?? '';
      const substituted = this.substitutionEnd(i, false);
      if (substituted !== undefined) {
        out += text.slice(i, substituted);
        i = substituted;
      } else if (char === '\\' && '$`"\\\n'.includes(next) && next !== '') {
        if (next !== '\n') out += next;
        i += 2;
      } else {
        out += char;
        i += 1;
      }
    }
    return { text: out, end: i + 1 };
  }

  /**
   * At a command substitution (`$(`, a backtick, and outside double quotes `<(`/`>(` too):
   * records the nested commands and returns the index after it; undefined anywhere else.
   */
  private substitutionEnd(i: number, processSubstitution: boolean): number | undefined {
    const char = this.text[i];
    if (this.text[i + 1] === '(') {
      if (char === '$' || (processSubstitution && (char === '<' || char === '>')))
        return this.readSubstitution(i + 2);
    }
    return char === '`' ? this.readBackticks(i + 1) : undefined;
  }

  /** Parses `$(...)` (from just inside the parenthesis); returns the index after `)`. */
  private readSubstitution(start: number): number {
    const close = matchingParen(this.text, start);
    this.nested.push(...parseShellCommands(this.text.slice(start, close)));
    return Math.min(close + 1, this.text.length);
  }

  /** Parses a backquoted command (from just after the opening backquote). */
  private readBackticks(start: number): number {
    let inner = '';
    let i = start;
    while (i < this.text.length && this.text[i] !== '`') {
      if (this.text[i] === '\\' && i + 1 < this.text.length) {
        inner += this.text[i + 1];
        i += 2;
      } else {
        inner += this.text[i];
        i += 1;
      }
    }
    this.nested.push(...parseShellCommands(inner));
    return Math.min(i + 1, this.text.length);
  }
}

/** The index of the `)` closing the group that starts at `start`, skipping quoted text. */
function matchingParen(text: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < text.length) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === "'") i = skipPast(text, i + 1, "'");
    else if (char === '"') i = skipDoubleQuoted(text, i + 1);
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
    i += 1;
  }
  return text.length;
}

function skipPast(text: string, start: number, quote: string): number {
  const close = text.indexOf(quote, start);
  return close === -1 ? text.length : close;
}

function skipDoubleQuoted(text: string, start: number): number {
  let i = start;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}

/** Decodes a `$'...'` string from just after its opening quote. */
function readAnsiC(text: string, start: number): Word {
  let out = '';
  let i = start;
  while (i < text.length && text[i] !== "'") {
    if (text[i] !== '\\') {
      out += text[i];
      i += 1;
      continue;
    }
    const escape = decodeAnsiEscape(text, i + 1);
    out += escape.text;
    i = escape.end;
  }
  return { text: out, end: i + 1 };
}

function decodeAnsiEscape(text: string, at: number): Word {
  const char = text[at] ?? '';
  const simple = ANSI_ESCAPES[char];
  if (simple !== undefined) return { text: simple, end: at + 1 };
  const numeric = (pattern: RegExp, base: number, skip: number): Word | null => {
    const digits = pattern.exec(text.slice(at + skip))?.[0];
    if (!digits) return null;
    return { text: String.fromCodePoint(parseInt(digits, base)), end: at + skip + digits.length };
  };
  const decoded =
    (/[0-7]/.test(char) ? numeric(/^[0-7]{1,3}/, 8, 0) : null) ??
    (char === 'x' ? numeric(/^[0-9a-fA-F]{1,2}/, 16, 1) : null) ??
    (char === 'u' ? numeric(/^[0-9a-fA-F]{1,4}/, 16, 1) : null) ??
    (char === 'U' ? numeric(/^[0-9a-fA-F]{1,8}/, 16, 1) : null);
  if (decoded) return decoded;
  if (char === 'c' && at + 1 < text.length) {
    return { text: String.fromCharCode((text.charCodeAt(at + 1) & 0x1f) >>> 0), end: at + 2 };
  }
  return { text: `\\${char}`, end: at + 1 };
}
