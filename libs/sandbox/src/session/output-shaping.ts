// ANSI CSI and OSC sequences: colours and cursor moves mean nothing to a model or a log.
// eslint-disable-next-line no-control-regex
const ANSI_SEQUENCE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
// Control characters other than tab and newline.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Turns raw command output into text that is safe to show and store: invalid UTF-8 becomes
 * U+FFFD, ANSI sequences are dropped, CRLF and lone CR become LF, and any other control byte
 * (NUL included) is written as `\xNN`.
 */
export function safeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false })
    .decode(bytes)
    .replace(ANSI_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The note that stands in for the middle of an over-long output. */
export function elisionNote(droppedBytes: number): string {
  return `\n[... ${droppedBytes} bytes of output elided ...]\n`;
}

/** Output as the caller sees it: whole when it fit, else head + elision note + tail. */
export function shapeOutput(
  head: Uint8Array,
  tail: Uint8Array,
  totalBytes: number,
): { output: string; truncated: boolean } {
  const dropped = totalBytes - head.length - tail.length;
  if (dropped <= 0 && tail.length === 0) return { output: safeText(head), truncated: false };
  return {
    output: safeText(head) + elisionNote(Math.max(dropped, 0)) + safeText(tail),
    truncated: true,
  };
}
