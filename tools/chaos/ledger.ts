/**
 * One scenario's accounting. A *request* is one thing a sender wanted done (a webhook delivery,
 * a message put on a subject, a run asked for); a *send* is one attempt at it.
 */
export interface LedgerRow {
  scenario: string;
  /** Sends (HTTP requests, messages published). */
  sent: number;
  /** Sends answered 2xx (or acknowledged by the bus). */
  acknowledged: number;
  /** Requests that became a run, or a recorded decision (stored, dead-lettered, answered). */
  processed: number;
  /** 2xx sends beyond a request's first: repeats that had to be recognised and dropped. */
  duplicateIgnored: number;
  /** Requests acknowledged at least once and never processed. */
  lost: number;
  /** Runs beyond one per request, a second start command, or a run that did work twice. */
  duplicateRuns: number;
}

const COLUMNS: readonly [keyof LedgerRow, string][] = [
  ['scenario', 'scenario'],
  ['sent', 'sent'],
  ['acknowledged', '2xx/acked'],
  ['processed', 'processed'],
  ['duplicateIgnored', 'dup-ignored'],
  ['lost', 'lost'],
  ['duplicateRuns', 'dup runs'],
];

/** What the chaos run saw: a row per scenario, and every other broken promise with its evidence. */
export class Ledger {
  readonly rows: LedgerRow[] = [];
  readonly findings: string[] = [];
  readonly notes: string[] = [];

  record(row: LedgerRow): void {
    this.rows.push(row);
  }

  /** A broken promise other than a loss or a duplicate run (a 500, a crash, a stall, a marker). */
  finding(scenario: string, text: string): void {
    this.findings.push(`${scenario}: ${text}`);
  }

  /** A measurement worth printing under the table (timings, counts by status). */
  note(scenario: string, text: string): void {
    this.notes.push(`${scenario}: ${text}`);
  }

  totals(): LedgerRow {
    const sum = (key: Exclude<keyof LedgerRow, 'scenario'>) =>
      this.rows.reduce((total, row) => total + row[key], 0);
    return {
      scenario: 'total',
      sent: sum('sent'),
      acknowledged: sum('acknowledged'),
      processed: sum('processed'),
      duplicateIgnored: sum('duplicateIgnored'),
      lost: sum('lost'),
      duplicateRuns: sum('duplicateRuns'),
    };
  }

  /** The closing table, then the notes and findings. */
  render(): string {
    const rows = [...this.rows, this.totals()].map((row) =>
      COLUMNS.map(([key]) => String(row[key])),
    );
    const header = COLUMNS.map(([, title]) => title);
    const widths = header.map((title, i) =>
      Math.max(title.length, ...rows.map((cells) => cells[i]?.length ?? 0)),
    );
    const line = (cells: string[]) =>
      cells
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('  ');
    const rule = widths.map((w) => '-'.repeat(w)).join('  ');
    const body = rows.map(line);
    return [
      line(header),
      rule,
      ...body.slice(0, -1),
      rule,
      body.at(-1) ?? '',
      '',
      ...this.notes.map((n) => `  ${n}`),
      '',
      this.findings.length === 0
        ? 'findings: none'
        : ['findings:', ...this.findings.map((f) => `  - ${f}`)].join('\n'),
    ].join('\n');
  }
}
