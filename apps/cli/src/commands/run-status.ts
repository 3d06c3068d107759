/** A terminal that can rewrite its last line. */
export interface StatusTerminal {
  /** Width of the terminal in characters (the status line is cut to fit). */
  readonly columns: number;
  write(text: string): void;
}

/** Where `caravel run` writes: lines that stay, and the terminal when there is one. */
export interface StatusOutput {
  /** Writes one line that stays. */
  line(text: string): void;
  /** When set, the activity is one line rewritten in place; otherwise it is plain lines. */
  terminal?: StatusTerminal;
}

/** How often a plain-lines output repeats a long activity, in milliseconds. */
const PLAIN_REPEAT_MS = 30_000;

const CLEAR_LINE = '\r\x1b[2K';

function seconds(ms: number): string {
  return `${Math.floor(ms / 1000)} s`;
}

/**
 * What a run is doing right now (waiting for the model, running a command) and for how long. On a
 * terminal it is one line rewritten in place under the lines that stay; elsewhere (a pipe, a CI
 * log) each new activity is a plain line `  … <activity>`, repeated with its elapsed time every
 * 30 s while it lasts.
 */
export class RunStatus {
  private activity: string | undefined;
  private detail = '';
  private since = 0;
  private repeated = 0;
  private shown = false;

  constructor(
    private readonly output: StatusOutput,
    private readonly now: () => number = Date.now,
  ) {}

  /** A line that stays (a step, the result), written above the activity. */
  line(text: string): void {
    this.erase();
    this.output.line(text);
    this.draw();
  }

  /** A new activity, e.g. `step 2: calling the model`; the same one again changes nothing. */
  set(activity: string): void {
    if (activity === this.activity) return;
    this.activity = activity;
    this.detail = '';
    this.since = this.now();
    this.repeated = this.since;
    if (this.output.terminal) this.draw();
    else this.output.line(`  … ${activity}`);
  }

  /** The latest line of the running command's output (shown on a terminal only). */
  note(detail: string): void {
    this.detail = detail;
    this.draw();
  }

  /** Refreshes the elapsed time (call it every poll). */
  tick(): void {
    if (this.activity === undefined) return;
    if (this.output.terminal) return this.draw();
    const now = this.now();
    if (now - this.repeated < PLAIN_REPEAT_MS) return;
    this.repeated = now;
    this.output.line(`  … still ${this.activity} (${seconds(now - this.since)})`);
  }

  /** The run is over: no activity any more, the status line erased. */
  stop(): void {
    this.erase();
    this.activity = undefined;
  }

  private draw(): void {
    const terminal = this.output.terminal;
    if (!terminal || this.activity === undefined) return;
    const elapsed = seconds(this.now() - this.since);
    const text = `  … ${this.activity} · ${elapsed}${this.detail ? ` · ${this.detail}` : ''}`;
    const width = Math.max(terminal.columns - 1, 20);
    terminal.write(`${CLEAR_LINE}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }

  private erase(): void {
    if (!this.shown || !this.output.terminal) return;
    this.output.terminal.write(CLEAR_LINE);
    this.shown = false;
  }
}
