import type { Selectable } from 'kysely';

/** `snake_case` as `camelCase`: `payload_sha256` is `payloadSha256`. */
type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

/**
 * A table's row as its repository returns it: every column of the generated Kysely type (as
 * selected, state columns narrowed to their sets) under its camelCase name. A column added to the
 * schema is a field the repository's mapper must fill, or the build fails.
 */
export type RowOf<Table> = {
  [Column in keyof Selectable<Table> & string as CamelCase<Column>]: Selectable<Table>[Column];
};

const camelNames = new Map<string, string>();

function camelCaseOf(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());
    camelNames.set(column, name);
  }
  return name;
}

/**
 * A selected row under its {@link RowOf} names: each column as it came back, renamed to
 * camelCase. For the tables whose repository returns the columns as they are; a repository that
 * decides something per column (a date from text, a nested value) maps by hand.
 */
export function rowOf<Table>(row: Selectable<Table>): RowOf<Table> {
  const renamed: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row as Record<string, unknown>)) {
    renamed[camelCaseOf(column)] = value;
  }
  // The renaming above is CamelCase<Column> for every column, which the type system cannot see.
  return renamed as RowOf<Table>;
}
