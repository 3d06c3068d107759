/** Environment keys whose values are credentials (webhook secrets, tokens, keys, the DB URL). */
const SECRET_KEY = /(TOKEN|SECRET|PASSWORD|PRIVATE_KEY|API_KEY|SESSION_KEYS|DATABASE_URL)$/;

/** Shorter values are too likely to occur in ordinary text to be scrubbed from it. */
const MIN_LENGTH = 8;

/** The credential values of an environment, to scrub from every log line by value. */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(
      ([key, value]) => SECRET_KEY.test(key) && value !== undefined && value.length >= MIN_LENGTH,
    )
    .map(([, value]) => value as string);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A function that replaces each of `values` in a line, as written or JSON-escaped (a secret
 * with a quote or backslash inside a JSON string), by `[redacted]`; the identity without values.
 */
export function valueScrubber(values: readonly string[]): (line: string) => string {
  const forms = [...new Set(values.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))];
  if (forms.length === 0) return (line) => line;
  const pattern = new RegExp(
    forms
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return (line) => line.replace(pattern, '[redacted]');
}
