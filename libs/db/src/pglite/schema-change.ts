/**
 * Leading keywords of statements that cannot change what a prepared statement reads or returns:
 * transaction control, plain reads and writes, and maintenance that keeps every table's shape.
 * Anything else (DDL, `SET`, `DISCARD`, `DEALLOCATE`, `DO`, a script of several statements) may.
 */
const SHAPE_PRESERVING = new Set([
  'abort',
  'analyze',
  'begin',
  'checkpoint',
  'commit',
  'copy',
  'delete',
  'end',
  'explain',
  'insert',
  'listen',
  'lock',
  'merge',
  'notify',
  'release',
  'rollback',
  'savepoint',
  'select',
  'show',
  'start',
  'table',
  'unlisten',
  'update',
  'vacuum',
  'values',
  'with',
]);

/** Leading whitespace, comments and opening parentheses, before a statement's first keyword. */
const PREAMBLE = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/;

/**
 * Whether running `sql` may change the schema a prepared statement was planned against, or drop
 * prepared statements: then cached statements are forgotten. Errs towards yes: a statement it
 * does not know, or text holding more than one statement, counts as a change.
 */
export function mayChangeSchema(sql: string): boolean {
  const statement = sql.replace(PREAMBLE, '').replace(/[\s;]+$/, '');
  if (statement.includes(';')) return true;
  const keyword = /^[a-z]+/i.exec(statement)?.[0]?.toLowerCase();
  return keyword === undefined ? statement.length > 0 : !SHAPE_PRESERVING.has(keyword);
}

const QUERY = 'Q'.charCodeAt(0);
const PARSE = 'P'.charCodeAt(0);
const decoder = new TextDecoder();

/** The NUL-terminated string at `start` of `bytes`, and where the byte after it is. */
function cString(bytes: Uint8Array, start: number, end: number): [string, number] {
  const nul = bytes.indexOf(0, start);
  const stop = nul === -1 || nul > end ? end : nul;
  return [decoder.decode(bytes.subarray(start, stop)), stop + 1];
}

/**
 * The SQL texts in a buffer of frontend (client) wire-protocol messages: each simple Query's and
 * each Parse's. A truncated last message is read as far as it goes.
 */
export function statementTexts(buffer: Uint8Array): string[] {
  const texts: string[] = [];
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  for (let at = 0; at + 5 <= buffer.length;) {
    const type = buffer[at]!;
    const end = Math.min(at + 1 + view.getInt32(at + 1), buffer.length);
    if (type === QUERY) texts.push(cString(buffer, at + 5, end)[0]);
    if (type === PARSE) {
      const [, afterName] = cString(buffer, at + 5, end);
      texts.push(cString(buffer, afterName, end)[0]);
    }
    if (end <= at) break;
    at = end;
  }
  return texts;
}
