/** The marker around text from people or systems whose words are data, not instructions. */
export const UNTRUSTED_TAG = 'untrusted_content';

/** Escapes a value for a double-quoted marker attribute. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Neutralises any marker inside the text so untrusted content cannot close its own wrapper. */
export function neutraliseUntrustedMarkers(text: string): string {
  return text.replace(new RegExp(`<(/?)${UNTRUSTED_TAG}`, 'gi'), '&lt;$1' + UNTRUSTED_TAG);
}

/**
 * Wraps text in the untrusted marker, with `attributes` (author, source, ...) on the opening tag.
 * Markers inside the text are neutralised first, so the wrapped text cannot escape.
 */
export function wrapUntrusted(text: string, attributes: Record<string, string> = {}): string {
  const attrs = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join('');
  return `<${UNTRUSTED_TAG}${attrs}>\n${neutraliseUntrustedMarkers(text)}\n</${UNTRUSTED_TAG}>`;
}
