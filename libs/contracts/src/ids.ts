import { hash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The 16 bytes of the namespaces seen (Caravel's own and RFC 9562's), each read once. */
const namespaceBytes = new Map<string, Buffer>();
const NAMESPACES_KEPT = 16;

function bytesOfNamespace(namespace: string): Buffer {
  let bytes = namespaceBytes.get(namespace);
  if (!bytes) {
    if (!UUID.test(namespace)) throw new Error(`namespace must be a UUID, got ${namespace}`);
    bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (namespaceBytes.size < NAMESPACES_KEPT) namespaceBytes.set(namespace, bytes);
  }
  return bytes;
}

/** The id's text is written here, then read as one string (no slices to join). */
const idText = Buffer.alloc(36, '-');
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Where each of the 16 bytes' two hex digits go, around the four dashes. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/**
 * RFC 9562 name-based UUID, version 5 (SHA-1): the same namespace and name give the same id.
 * Three are derived for every webhook delivery, so the input is hashed in one call, its digest
 * read as a 'binary' (latin1) string (one char a byte: no buffer and backing store for 20 bytes) and the
 * id's text made as one string.
 */
export function uuidV5(name: string, namespace: string): string {
  const input = Buffer.allocUnsafe(16 + Buffer.byteLength(name, 'utf8'));
  bytesOfNamespace(namespace).copy(input, 0);
  input.write(name, 16, 'utf8');
  const digest = hash('sha1', input, 'binary');
  for (let index = 0; index < 16; index += 1) {
    let byte = digest.charCodeAt(index);
    if (index === 6) byte = (byte & 0x0f) | 0x50;
    else if (index === 8) byte = (byte & 0x3f) | 0x80;
    const at = DIGITS_AT[index]!;
    idText[at] = HEX_DIGITS[byte >> 4]!;
    idText[at + 1] = HEX_DIGITS[byte & 0x0f]!;
  }
  return idText.toString('latin1');
}

/** RFC 9562's predefined namespace for URLs. */
export const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** Caravel's root namespace (UUIDv5 of its URL): every derived id hangs below it. */
export const CARAVEL_NAMESPACE = uuidV5('https://caravel.dev/ids', URL_NAMESPACE);

/** The run a trigger starts: deterministic, so a redelivered trigger maps to the same run. */
export function runIdForTrigger(triggerId: string): string {
  return uuidV5(`run:${triggerId}`, CARAVEL_NAMESPACE);
}
