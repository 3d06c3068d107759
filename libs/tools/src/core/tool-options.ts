import {
  createShaper,
  DEFAULT_MAX_OBSERVATION_CHARS,
  type ObservationShaper,
} from './observation.js';

/** Limits and hooks shared by the curated tools. Every field has a default. */
export interface ToolOptions {
  /** Shapes command output (empty, clipped). Defaults to {@link createShaper}. */
  shape: ObservationShaper;
  /**
   * Shapes `execute`'s output only (default: `shape`): a run that offloads long outputs to files
   * clips commands much later, so the file holds what the command printed.
   */
  shapeCommandOutput?: ObservationShaper;
  /** `execute`'s timeout when the model gives none. */
  defaultExecTimeoutMs: number;
  /** The largest timeout the model may ask `execute` for. */
  maxExecTimeoutMs: number;
  /** `read_file`'s window when the model gives no limit, in lines. */
  defaultReadLines: number;
  /** The largest window `read_file` shows, in lines. */
  maxReadLines: number;
  /** Longer lines are cut in `read_file` (minified files would flood the context). */
  maxLineChars: number;
  /** Budget of one `read_file` window, in characters; the window ends early past it. */
  maxReadChars: number;
  /** Most paths `ls` and `glob` list. */
  maxListEntries: number;
  /** Most lines `grep` reports. */
  maxGrepMatches: number;
}

/** The defaults, in one place so docs/tools.md can quote them. */
export const DEFAULT_TOOL_OPTIONS: Readonly<Omit<ToolOptions, 'shape'>> = {
  defaultExecTimeoutMs: 120_000,
  maxExecTimeoutMs: 1_800_000,
  defaultReadLines: 400,
  maxReadLines: 2_000,
  maxLineChars: 2_000,
  maxReadChars: DEFAULT_MAX_OBSERVATION_CHARS,
  maxListEntries: 500,
  maxGrepMatches: 200,
};

/** Fills in the defaults. */
export function resolveToolOptions(options: Partial<ToolOptions> = {}): ToolOptions {
  return { shape: createShaper(), ...DEFAULT_TOOL_OPTIONS, ...options };
}
