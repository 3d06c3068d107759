/**
 * Observation shaping for command output, after SWE-agent's templates: a fixed sentence for empty
 * output, and a clipped view (head and tail) with the elided count for long output. Pure, so the
 * loop library may supply its own shaper through {@link ObservationShaper}.
 */

/** The sentence the model reads when a command printed nothing. */
export const NO_OUTPUT_MESSAGE = 'The command ran successfully and did not produce any output.';

/** Default observation budget, in characters. */
export const DEFAULT_MAX_OBSERVATION_CHARS = 20_000;

/** Text shaped for the model. */
export interface ShapedObservation {
  text: string;
  /** The raw text was empty or whitespace only. */
  empty: boolean;
  /** Part of the raw text was left out. */
  truncated: boolean;
  /** How many characters were left out. */
  elidedChars: number;
}

/** Turns raw command output into what the model reads. */
export type ObservationShaper = (raw: string) => ShapedObservation;

/** Options of {@link shapeObservation}. */
export interface ShapeOptions {
  /** The most characters of raw output kept (the notes around it come on top). */
  maxChars: number;
}

/**
 * Shapes raw output. Within budget it is returned as is; over budget the first and last halves of
 * the budget are kept (errors tend to be at the end, the command's context at the start) and a
 * note gives the elided count and how to look at the rest.
 */
export function shapeObservation(raw: string, options: ShapeOptions): ShapedObservation {
  if (raw.trim() === '') {
    return { text: NO_OUTPUT_MESSAGE, empty: true, truncated: false, elidedChars: 0 };
  }
  if (raw.length <= options.maxChars) {
    return { text: raw, empty: false, truncated: false, elidedChars: 0 };
  }
  const headChars = Math.ceil(options.maxChars / 2);
  const tailChars = options.maxChars - headChars;
  const elidedChars = raw.length - headChars - tailChars;
  const head = raw.slice(0, headChars);
  const tail = tailChars > 0 ? raw.slice(raw.length - tailChars) : '';
  const text = [
    head,
    `\n<response clipped: ${elidedChars} characters elided>\n`,
    tail,
    `\n<NOTE>The output had ${raw.length} characters; only the first ${headChars} and the last ` +
      `${tailChars} are shown. Narrow it with head, tail or grep, or redirect it to a file and ` +
      `read parts of that file. Do not use interactive pagers.</NOTE>`,
  ].join('');
  return { text, empty: false, truncated: true, elidedChars };
}

/** A shaper with a fixed budget. */
export function createShaper(maxChars: number = DEFAULT_MAX_OBSERVATION_CHARS): ObservationShaper {
  return (raw) => shapeObservation(raw, { maxChars });
}

/**
 * A listing the model reads: its lines, then, when more matched than are shown, how many are and
 * what to narrow (`what`: the plural of what matched, `narrow`: "the pattern or the path").
 */
export function listingObservation(
  lines: readonly string[],
  listing: { truncated: boolean; what: string; narrow: string },
): string {
  if (!listing.truncated) return lines.join('\n');
  const note =
    `(more than ${lines.length} ${listing.what} match; only the first ${lines.length} are ` +
    `shown. Narrow ${listing.narrow}.)`;
  return [...lines, note].join('\n');
}

/** The sentence the model reads when a command was stopped at its time limit. */
export function timeoutMessage(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return (
    `The command timed out after ${seconds} seconds and was stopped. Run long-lived work in the ` +
    `background (redirecting its output to a file), or pass a larger timeout_seconds.`
  );
}
