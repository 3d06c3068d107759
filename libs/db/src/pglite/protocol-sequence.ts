/** Frontend messages of PostgreSQL's extended query protocol, by their type byte. */
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((type) => type.charCodeAt(0)));
const SYNC_TYPE = 'S'.charCodeAt(0);

/**
 * Whether a pg-wire client's extended-protocol query is unfinished: it opens with the first
 * Parse/Bind/Describe/Execute/Close/Flush and ends once its Sync has been answered. Until then
 * the backend's unnamed statement and portal are that client's.
 */
export class ProtocolSequence {
  /** A Sync message, as a client sends it. */
  static readonly SYNC = new Uint8Array([SYNC_TYPE, 0, 0, 0, 4]);

  private unfinished = false;

  get open(): boolean {
    return this.unfinished;
  }

  /** Before the backend handles `message`. */
  before(message: Uint8Array): void {
    if (message.length > 0 && EXTENDED.has(message[0]!)) this.unfinished = true;
  }

  /** After the backend answered `message` (or failed on it). */
  after(message: Uint8Array): void {
    if (message[0] === SYNC_TYPE) this.unfinished = false;
  }

  reset(): void {
    this.unfinished = false;
  }
}
