import {
  MemoryFS,
  messages,
  protocol,
  types,
  type PGlite,
  type Results,
} from '@electric-sql/pglite';

const { serialize } = protocol;

/** What follows every run's Bind: Describe the portal, Execute it whole, Sync. */
const DESCRIBE_EXECUTE_SYNC = Buffer.concat([
  serialize.describe({ type: 'P' }),
  serialize.execute({}),
  serialize.sync(),
]);

/** The buffers' sizes to start with and to shrink back to after a larger exchange. */
const SEND_BYTES = 16 * 1024;
const RECEIVE_BYTES = 64 * 1024;
const KEPT_BYTES = 1024 * 1024;

// Backend message types read here.
const ROW_DESCRIPTION = 0x54;
const DATA_ROW = 0x44;
const COMMAND_COMPLETE = 0x43;
const ERROR_RESPONSE = 0x45;
/** Commands whose tag's count is added to `affectedRows`, as PGlite's `parseResults` does. */
const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE']);

/** The sync of PGlite's built-in Emscripten file systems (memory, a Node data directory): none. */
const BUILTIN_SYNC: unknown = Reflect.get(
  Object.getPrototypeOf(MemoryFS.prototype) as object,
  'syncToFs',
);

type Field = Results['fields'][number];

/**
 * One run of a prepared statement on PGlite in one crossing into its backend, allocating little:
 * the messages are written into a buffer kept for the next run, the answer is copied into
 * another and read where it lies. PGlite's `execProtocolStream` with pg-protocol's serialiser
 * and parser (as `query` uses them) built a writer's growing buffers and slices for each
 * message, an object for each backend message and a copy of each value's bytes: ~15 KiB of
 * garbage a statement, most of what a webhook delivery allocated (`docs/performance.md`).
 *
 * The rows are what PGlite's `parseResults` makes of the same answer (object rows, each value
 * through the instance's parsers), and a failed statement throws the same `DatabaseError`, read
 * by PGlite's own parser. Notifications in an answer are not dispatched (nothing here listens).
 */
export class WireExchange {
  private send = Buffer.allocUnsafe(SEND_BYTES);
  private receive = Buffer.allocUnsafe(RECEIVE_BYTES);
  private received = 0;
  /** False for the file systems whose sync does nothing (the ones Caravel opens). */
  private readonly syncs: boolean;
  private readonly onRawData = (bytes: Uint8Array): void => {
    const needed = this.received + bytes.length;
    if (needed > this.receive.length) {
      const larger = Buffer.allocUnsafe(Math.max(needed, this.receive.length * 2));
      this.receive.copy(larger, 0, 0, this.received);
      this.receive = larger;
    }
    this.receive.set(bytes, this.received);
    this.received = needed;
  };

  private readonly streamOptions = { syncToFs: false, onRawData: this.onRawData };

  constructor(private readonly pglite: PGlite) {
    this.syncs = (pglite.fs as { syncToFs?: unknown } | undefined)?.syncToFs !== BUILTIN_SYNC;
  }

  /** Syncs the file system after a statement outside a transaction, as PGlite's `query` does. */
  async syncFileSystem(): Promise<void> {
    if (this.syncs && !this.pglite.isInTransaction()) await this.pglite.syncToFs();
  }

  /**
   * Sends `before` (Close messages due), then runs prepared `statement` with `values` (each
   * already serialised: text, or null) and answers its result as PGlite's `query` would.
   */
  async run<R>(
    before: readonly Uint8Array[],
    statement: string,
    values: readonly (string | null)[],
  ): Promise<Results<R>> {
    const length = this.write(before, statement, values);
    this.received = 0;
    try {
      await this.pglite.execProtocolRawStream(this.send.subarray(0, length), this.streamOptions);
      if (this.syncs) await this.syncFileSystem();
      return this.results<R>();
    } finally {
      if (this.send.length > KEPT_BYTES) this.send = Buffer.allocUnsafe(SEND_BYTES);
      if (this.receive.length > KEPT_BYTES) this.receive = Buffer.allocUnsafe(RECEIVE_BYTES);
    }
  }

  /** Writes the messages into `send`; their length. Bind: every value and result as text. */
  private write(
    before: readonly Uint8Array[],
    statement: string,
    values: readonly (string | null)[],
  ): number {
    let size = 1 + 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2;
    for (const message of before) size += message.length;
    for (const value of values) size += 4 + (value === null ? 0 : Buffer.byteLength(value));
    size += DESCRIBE_EXECUTE_SYNC.length;
    if (size > this.send.length) this.send = Buffer.allocUnsafe(size);
    const send = this.send;
    let at = 0;
    for (const message of before) {
      send.set(message, at);
      at += message.length;
    }
    send[at] = 0x42; // Bind
    const lengthAt = at + 1;
    at = lengthAt + 4;
    send[at++] = 0; // the unnamed portal
    at += send.write(statement, at, 'utf8');
    send[at++] = 0;
    at = send.writeUInt16BE(0, at); // no parameter formats: all text
    at = send.writeUInt16BE(values.length, at);
    for (const value of values) {
      if (value === null) {
        at = send.writeInt32BE(-1, at);
        continue;
      }
      const written = send.write(value, at + 4, 'utf8');
      at = send.writeInt32BE(written, at) + written;
    }
    at = send.writeUInt16BE(0, at); // no result formats: all text
    send.writeInt32BE(at - lengthAt, lengthAt);
    return at + DESCRIBE_EXECUTE_SYNC.copy(send, at);
  }

  /** The first result of the answer in `receive`; its first error thrown. */
  private results<R>(): Results<R> {
    const buffer = this.receive;
    const end = this.received;
    let fields: Field[] = [];
    const rows: R[] = [];
    for (let at = 0; at + 5 <= end; at += 1 + buffer.readInt32BE(at + 1)) {
      const body = at + 5;
      switch (buffer.readUInt8(at)) {
        case ERROR_RESPONSE:
          throw this.errorIn(end);
        case ROW_DESCRIPTION:
          fields = fieldsAt(buffer, body);
          break;
        case DATA_ROW:
          rows.push(this.rowAt(buffer, body, fields) as R);
          break;
        case COMMAND_COMPLETE:
          if (this.hasError(at, end)) throw this.errorIn(end);
          return completed(rows, fields, textAt(buffer, body, buffer.indexOf(0, body)));
        default:
          break; // BindComplete, CloseComplete, NoData, ReadyForQuery and the like say nothing.
      }
    }
    return { affectedRows: 0, rows: [], fields: [] };
  }

  /** Whether an error follows `from` in the answer (PGlite throws the first, wherever it is). */
  private hasError(from: number, end: number): boolean {
    for (let at = from; at + 5 <= end; at += 1 + this.receive.readInt32BE(at + 1)) {
      if (this.receive[at] === ERROR_RESPONSE) return true;
    }
    return false;
  }

  /** The answer's first error, as PGlite's parser reads it. */
  private errorIn(end: number): Error {
    let error: Error | undefined;
    new protocol.Parser().parse(this.receive.subarray(0, end), (message) => {
      if (!error && message instanceof messages.DatabaseError) error = message;
    });
    return error ?? new Error('PGlite answered an error that could not be read');
  }

  private rowAt(buffer: Buffer, body: number, fields: readonly Field[]): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    const count = buffer.readInt16BE(body);
    let at = body + 2;
    for (let index = 0; index < count; index += 1) {
      const length = buffer.readInt32BE(at);
      at += 4;
      const text = length < 0 ? null : textAt(buffer, at, at + length);
      if (length > 0) at += length;
      const field = fields[index]!;
      defineValue(row, field.name, types.parseType(text, field.dataTypeID, this.pglite.parsers));
    }
    return row;
  }
}

/** A row's fields as PGlite lists them: name and type. */
function fieldsAt(buffer: Buffer, body: number): Field[] {
  const count = buffer.readInt16BE(body);
  const fields = new Array<Field>(count);
  let at = body + 2;
  for (let index = 0; index < count; index += 1) {
    const nameEnd = buffer.indexOf(0, at);
    const name = textAt(buffer, at, nameEnd);
    // After the name: table OID (4), column (2), type OID (4), size (2), modifier (4), format (2).
    fields[index] = { name, dataTypeID: buffer.readInt32BE(nameEnd + 1 + 6) };
    at = nameEnd + 1 + 18;
  }
  return fields;
}

/** What PGlite's `parseResults` makes of a command's end: its rows, command and counts. */
function completed<R>(rows: R[], fields: Field[], tag: string): Results<R> {
  const parts = tag.split(' ');
  const command = parts[0]!;
  const rowCount = parseInt(parts[parts.length - 1]!, 10);
  const result: Results<R> & { command: string } = {
    rows,
    fields,
    command,
    affectedRows: AFFECTING.has(command) ? rowCount : 0,
  };
  if (!Number.isNaN(rowCount)) result.rowCount = rowCount;
  return result;
}

/** UTF-8 text as pg-protocol's reader decodes it (a `TextDecoder`: a leading BOM dropped). */
function textAt(buffer: Buffer, start: number, end: number): string {
  const from =
    end - start >= 3 &&
    buffer[start] === 0xef &&
    buffer[start + 1] === 0xbb &&
    buffer[start + 2] === 0xbf
      ? start + 3
      : start;
  return buffer.toString('utf8', from, end);
}

/** `row[name] = value`, as `Object.fromEntries` would: a `__proto__` column stays a column. */
function defineValue(row: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') {
    Object.defineProperty(row, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    row[name] = value;
  }
}
