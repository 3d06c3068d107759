/**
 * Hidden idempotency markers for side effects on APIs without idempotency keys: the key rides in
 * an HTML comment (invisible in rendered markdown) and is looked for before posting again.
 */
const PREFIX = 'caravel-idempotency-key';

/** Keys are reduced to a safe alphabet so they can never close the comment. */
function safe(key: string): string {
  return key.replace(/[^A-Za-z0-9:._-]/g, '_').slice(0, 200);
}

/** The marker for `key`. */
export function idempotencyMarker(key: string): string {
  return `<!-- ${PREFIX}:${safe(key)} -->`;
}

/** `body` with the marker for `key` appended. */
export function withMarker(body: string, key: string): string {
  return `${body}\n\n${idempotencyMarker(key)}`;
}

/** True when `body` carries the marker for `key`. */
export function hasMarker(body: string | null | undefined, key: string): boolean {
  return (body ?? '').includes(idempotencyMarker(key));
}

/** The first item whose body carries the marker for `key`. */
export function findMarked<T extends { body?: string | null | undefined }>(
  items: readonly T[],
  key: string,
): T | undefined {
  return items.find((item) => hasMarker(item.body, key));
}
