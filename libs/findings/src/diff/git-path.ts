/** A path as git writes it in a diff header, and what followed it on the line. */
interface Token {
  value: string;
  rest: string;
}

const ESCAPES: Record<string, number> = {
  a: 0x07,
  b: 0x08,
  t: 0x09,
  n: 0x0a,
  v: 0x0b,
  f: 0x0c,
  r: 0x0d,
  '"': 0x22,
  '\\': 0x5c,
};

/**
 * Reads a C-quoted path at the start of `text` (`"a/\303\251 t.txt"`: git quotes a name holding
 * control characters, `"`, `\` or, with core.quotePath, bytes over 0x7f, written in octal). The
 * bytes are decoded as UTF-8. Returns undefined when `text` holds no closed quoted string.
 */
export function readQuoted(text: string): Token | undefined {
  if (!text.startsWith('"')) return undefined;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 1; i < text.length; i += 1) {
    const ch = text[i] as string;
    if (ch === '"') {
      return { value: new TextDecoder().decode(Uint8Array.from(bytes)), rest: text.slice(i + 1) };
    }
    if (ch !== '\\') {
      const code = text.codePointAt(i) as number;
      const char = String.fromCodePoint(code);
      bytes.push(...encoder.encode(char));
      i += char.length - 1;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return undefined;
    const octal = /^[0-7]{3}/.exec(text.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next] as number);
      i += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The path of a `---`/`+++` line's name (after the marker and space): unquoted, the trailing tab
 * git adds to names holding a space (or a plain diff's timestamp) removed, `/dev/null` as null,
 * and the prefix (`a/`, `b/`) stripped.
 */
export function pathOfMarkerLine(name: string, prefix: string): string | null {
  const quoted = readQuoted(name);
  const raw = quoted ? quoted.value : (name.split('\t')[0] as string);
  if (!quoted && raw === '/dev/null') return null;
  return stripPrefix(raw, prefix);
}

/** A path from a `rename from`/`copy to` header (no prefix there, quoted when needed). */
export function pathOfExtendedHeader(name: string): string {
  return readQuoted(name)?.value ?? name;
}

/**
 * The two paths of a `diff --git <a> <b>` line. Names with spaces make the unquoted form
 * ambiguous; it is read as two equal halves when the file kept its name, else split at the
 * first ` b/`. Later headers (`rename from`, `---`, `+++`) override what this guesses.
 */
export function pathsOfGitHeader(
  rest: string,
  prefixes: readonly [string, string],
): { oldPath: string; newPath: string } | undefined {
  const [src, dst] = prefixes;
  const first = readQuoted(rest);
  if (first) {
    const tail = first.rest.replace(/^ /, '');
    const second = readQuoted(tail)?.value ?? tail;
    return { oldPath: stripPrefix(first.value, src), newPath: stripPrefix(second, dst) };
  }
  const quotedAt = rest.indexOf(' "');
  if (quotedAt > 0 && rest.endsWith('"')) {
    const second = readQuoted(rest.slice(quotedAt + 1));
    if (second && second.rest === '') {
      return {
        oldPath: stripPrefix(rest.slice(0, quotedAt), src),
        newPath: stripPrefix(second.value, dst),
      };
    }
  }
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === ' ') {
    const oldPath = stripPrefix(rest.slice(0, half), src);
    const newPath = stripPrefix(rest.slice(half + 1), dst);
    if (oldPath === newPath) return { oldPath, newPath };
  }
  const split = rest.indexOf(` ${dst}`);
  if (split < 0) return undefined;
  return {
    oldPath: stripPrefix(rest.slice(0, split), src),
    newPath: stripPrefix(rest.slice(split + 1), dst),
  };
}

function stripPrefix(path: string, prefix: string): string {
  return prefix !== '' && path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
