import { protocol } from '@electric-sql/pglite';
import { describe, expect, it } from '@jest/globals';
import { mayChangeSchema, statementTexts } from './schema-change.js';

const { serialize } = protocol;

describe('whether a statement may change the schema', () => {
  it.each([
    'select 1',
    '  SELECT * from runs where id = $1',
    '(select 1) union (select 2)',
    '-- a note\nselect 1',
    '/* a note */ insert into t values ($1)',
    'update t set a = $1;',
    'with x as (select 1) select * from x',
    'begin isolation level serializable',
    'commit',
    'rollback to savepoint "a"',
    'release savepoint "a"',
  ])('%j keeps every shape', (sql) => {
    expect(mayChangeSchema(sql)).toBe(false);
  });

  it.each([
    'create table t (a int)',
    'ALTER TABLE t ADD COLUMN b int',
    'drop table t',
    'truncate t',
    'set search_path to other',
    'discard all',
    'deallocate all',
    "do $$ begin execute 'alter table t add c int'; end $$",
    'select 1; alter table t add column d int',
    '-- only a comment\ncreate index on t (a)',
  ])('%j may change it', (sql) => {
    expect(mayChangeSchema(sql)).toBe(true);
  });

  it('reads an empty text as no change', () => {
    expect(mayChangeSchema('  ;  ')).toBe(false);
  });
});

describe('the SQL texts of frontend messages', () => {
  const join = (...parts: Uint8Array[]): Uint8Array => {
    const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
    parts.reduce((at, part) => (joined.set(part, at), at + part.length), 0);
    return joined;
  };

  it("reads each Query's and each Parse's text, and nothing from the other messages", () => {
    const buffer = join(
      serialize.query('alter table t add b int'),
      serialize.parse({ name: 'named', text: 'select $1::int' }),
      serialize.bind({ statement: 'named', values: ['1'] }),
      serialize.parse({ text: 'select 2' }),
      serialize.execute({}),
      serialize.sync(),
    );
    expect(statementTexts(buffer)).toEqual([
      'alter table t add b int',
      'select $1::int',
      'select 2',
    ]);
  });

  it('reads a truncated message as far as it goes', () => {
    const whole = serialize.query('create table t (a int)');
    expect(statementTexts(whole.subarray(0, 12))).toEqual(['create ']);
    expect(statementTexts(whole.subarray(0, 3))).toEqual([]);
  });
});
