/**
 * Environment keys whose values are credentials: webhook secrets, tokens, keys, the DB URL, the
 * keyrings (`CARAVEL_TOKEN_KEYS`, `CONNECT_SECRET_KEYS`, `DASHBOARD_SESSION_KEYS`) and the
 * previous secret kept during a rotation (`GITHUB_WEBHOOK_SECRET_PREVIOUS`).
 */
const SECRET_KEY = /(TOKEN|SECRET|PASSWORD|PRIVATE_KEY|API_KEY|_KEYS|DATABASE_URL)(_PREVIOUS)?$/;
/** A keyring: `id:base64key` entries, comma separated, each key also scrubbed alone. */
const KEYRING = /_KEYS(_PREVIOUS)?$/;

/** Shorter values are too likely to occur in ordinary text to be scrubbed from it. */
const MIN_LENGTH = 8;

/** A keyring's value, each entry, and each entry's key without its id. */
function keyringParts(value: string): string[] {
  return value.split(',').flatMap((entry) => {
    const trimmed = entry.trim();
    return [trimmed, trimmed.slice(trimmed.indexOf(':') + 1)];
  });
}

/** The password of a URL with one (`nats://user:pw@host`), as written and decoded. */
function urlPassword(value: string): string[] {
  if (!value.includes('@') || !URL.canParse(value)) return [];
  const { password } = new URL(value);
  if (!password) return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/**
 * The credential values of an environment, to scrub from every log line by value: each secret
 * key's value (a keyring's entries and keys one by one too), and the password of any URL.
 */
export function secretValuesOf(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = Object.entries(env).flatMap(([key, value]) => {
    if (value === undefined) return [];
    if (!SECRET_KEY.test(key)) return urlPassword(value);
    return KEYRING.test(key) ? [value, ...keyringParts(value)] : [value, ...urlPassword(value)];
  });
  return [...new Set(values)].filter((value) => value.length >= MIN_LENGTH);
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
