import { CompiledQuery, type Compilable } from 'kysely';
import { GROUP_COMMIT_MAX_BATCH } from './group-commit.js';

/** Where a row's value goes: compiled in its place, found again among the parameters. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A multi-row insert whose every value is a plain parameter, so its SQL text depends only on how
 * many rows it carries: built with Kysely's query builder and compiled once per row count, then
 * bound to new rows. For the statements a webhook makes (the ingress's claims, the embedded bus's
 * appends): building and compiling the query was a sixth of what a delivery allocated.
 *
 * `statementFor` builds the statement for rows given as objects with `columns`; it is called with
 * stand-ins, once per row count. A statement that adds a parameter of its own, drops one or
 * reorders them (a raw SQL value, a `where` with a value) is refused when first compiled. The
 * text is compiled by the database `statementFor` builds on, so that database's plugins shape it
 * once; a statement run later through an executor with plugins of its own is not reshaped by them
 * (their `transformResult` still runs). The texts of up to GROUP_COMMIT_MAX_BATCH rows are kept.
 */
export class ShapedInsert<V, R> {
  private readonly texts = new Map<number, string>();

  constructor(
    private readonly columns: readonly (keyof V & string)[],
    private readonly statementFor: (rows: readonly V[]) => Compilable<R>,
  ) {}

  /** The statement for `rows`, compiled (the first time for its row count) and bound. */
  compile(rows: readonly V[]): CompiledQuery<R> {
    const width = this.columns.length;
    const parameters = new Array<unknown>(rows.length * width);
    rows.forEach((row, r) =>
      this.columns.forEach((column, c) => {
        parameters[r * width + c] = row[column];
      }),
    );
    return CompiledQuery.raw(this.textFor(rows.length), parameters);
  }

  private textFor(count: number): string {
    const known = this.texts.get(count);
    if (known !== undefined) return known;
    const width = this.columns.length;
    const standIns = Array.from(
      { length: count },
      (_, r) =>
        Object.fromEntries(this.columns.map((column, c) => [column, new Slot(r * width + c)])) as V,
    );
    const compiled = this.statementFor(standIns).compile();
    const inPlace =
      compiled.parameters.length === count * width &&
      compiled.parameters.every((value, index) => value instanceof Slot && value.index === index);
    if (!inPlace) {
      throw new Error(
        `ShapedInsert: the statement's parameters are not its rows' values in column order: ${compiled.sql}`,
      );
    }
    if (count <= GROUP_COMMIT_MAX_BATCH) this.texts.set(count, compiled.sql);
    return compiled.sql;
  }
}
