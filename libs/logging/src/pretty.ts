/** pino's numeric levels, as written in each JSON line. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Keys shown in the line's head, not repeated among its fields. */
const HEAD_KEYS = new Set(['level', 'time', 'msg', 'service', 'context', 'pid', 'hostname', 'err']);

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return date.toISOString().slice(11, 23);
}

function fieldText(value: unknown): string {
  return typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value);
}

/**
 * One JSON log line as a person reads it:
 * `12:03:04.567 WARN  [dispatch Bus] message  correlationId=… threadId=…`, an error's stack
 * below. Lines that are not JSON pass through unchanged.
 */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = (LEVEL_NAMES[Number(entry['level'])] ?? 'INFO').padEnd(5);
  const where = [entry['service'], entry['context']].filter((p) => typeof p === 'string');
  const head = `${clock(entry['time'])} ${level} ${where.length ? `[${where.join(' ')}] ` : ''}`;
  const fields = Object.entries(entry)
    .filter(([key]) => !HEAD_KEYS.has(key))
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const err = entry['err'] as { stack?: unknown } | undefined;
  const stack = typeof err?.stack === 'string' ? `\n${err.stack}` : '';
  const message = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  return `${head}${message}${fields.length ? `  ${fields.join(' ')}` : ''}${stack}\n`;
}
