import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import type { DB } from '../generated/types.js';
import { ShapedInsert } from './shaped-insert.js';

/** A Kysely that compiles PostgreSQL and runs nothing. */
const db = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new PostgresIntrospector(kysely),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

interface Row {
  stream: string;
  subject: string;
  thread_id: string | null;
  message_id: string;
  payload: string;
}

const COLUMNS = ['stream', 'subject', 'thread_id', 'message_id', 'payload'] as const;

const row = (n: number): Row => ({
  stream: `s${n}`,
  subject: `subject ${n}`,
  thread_id: n % 2 === 0 ? null : `t${n}`,
  message_id: `m${n}`,
  payload: `{"n":${n}}`,
});

function built(rows: readonly Row[]) {
  return db
    .insertInto('bus_messages')
    .values(rows)
    .onConflict((oc) => oc.columns(['stream', 'message_id']).doNothing())
    .returning(['sequence']);
}

describe('ShapedInsert', () => {
  it('compiles to what the query builder compiles, with the rows bound in column order', () => {
    const insert = new ShapedInsert<Row, { sequence: string }>(COLUMNS, built);
    for (const rows of [[row(1)], [row(2), row(3), row(4)]]) {
      const compiled = insert.compile(rows);
      const expected = built(rows).compile();
      expect(compiled.sql).toBe(expected.sql);
      expect(compiled.parameters).toEqual(expected.parameters);
    }
  });

  it('builds the statement once per row count', () => {
    let builds = 0;
    const insert = new ShapedInsert<Row, { sequence: string }>(COLUMNS, (rows) => {
      builds += 1;
      return built(rows);
    });
    insert.compile([row(1)]);
    insert.compile([row(2)]);
    insert.compile([row(3), row(4)]);
    const again = insert.compile([row(5), row(6)]);
    expect(builds).toBe(2);
    expect(again.parameters).toEqual([...Object.values(row(5)), ...Object.values(row(6))]);
  });

  it('keeps a value wrapped in SQL of its own in its place', () => {
    const insert = new ShapedInsert<Row, { sequence: string }>(COLUMNS, (rows) =>
      db
        .insertInto('bus_messages')
        .values(rows.map((each) => ({ ...each, payload: sql<string>`lower(${each.payload})` }))),
    );
    const compiled = insert.compile([row(7), row(8)]);
    expect(compiled.sql).toContain('lower($5)');
    expect(compiled.sql).toContain('lower($10)');
    expect(compiled.parameters[9]).toBe('{"n":8}');
  });

  it('refuses a statement with a parameter that is not a row value', () => {
    const insert = new ShapedInsert<Row, { sequence: string }>(COLUMNS, (rows) =>
      db.insertInto('bus_messages').values(rows.map((each) => ({ ...each, subject: 'fixed' }))),
    );
    expect(() => insert.compile([row(1)])).toThrow(/not its rows' values in column order/);
  });

  it('refuses a statement that leaves a column out', () => {
    const insert = new ShapedInsert<Row, { sequence: string }>(COLUMNS, (rows) =>
      db.insertInto('bus_messages').values(rows.map(({ thread_id: _threadId, ...rest }) => rest)),
    );
    expect(() => insert.compile([row(1)])).toThrow(/not its rows' values in column order/);
  });
});
