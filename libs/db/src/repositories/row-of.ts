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
