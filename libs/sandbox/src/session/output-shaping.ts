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
  return cleanText(new TextDecoder('utf-8', { fatal: false }).decode(bytes));
}

function cleanText(text: string): string {
  return text
    .replace(ANSI_SEQUENCE, '')
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// What may still grow into something `cleanText` treats as one unit: a lone CR (CRLF), or an
// escape sequence not terminated yet (kept back at most this long, then let through as is).
// eslint-disable-next-line no-control-regex
const OPEN_TAIL = /(?:\r|\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?)$/;
const MAX_HELD_CHARS = 256;

/**
 * `safeText` for output that arrives in pieces: a multi-byte character, a CRLF or an ANSI
 * sequence cut between two pieces comes out as if it had arrived whole. `end()` flushes what was
 * held back.
 */
export class SafeTextStream {
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private held = '';

  push(bytes: Uint8Array): string {
    const text = this.held + this.decoder.decode(bytes, { stream: true });
    const open = OPEN_TAIL.exec(text);
    const cut = open && text.length - open.index <= MAX_HELD_CHARS ? open.index : text.length;
    this.held = text.slice(cut);
    return cleanText(text.slice(0, cut));
  }

  end(): string {
    const text = this.held + this.decoder.decode();
    this.held = '';
    return cleanText(text);
  }
}

/** The note that stands in for the middle of an over-long output. */
export function elisionNote(droppedBytes: number): string {
  return `\n[... ${droppedBytes} bytes of output elided ...]\n`;
}

/** The last streamed piece of a command whose output went past the streaming limit. */
export function streamStoppedNote(streamedBytes: number): string {
  return `\n[... streaming stopped after ${streamedBytes} bytes; the result keeps the end of the output ...]\n`;
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
