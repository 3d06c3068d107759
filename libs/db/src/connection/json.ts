/**
 * A value for a json/jsonb parameter. Both drivers send strings through unchanged and the server
 * parses them, whereas raw objects and arrays are serialised differently by pg (arrays become
 * PostgreSQL array literals) and PGlite. Repositories always pass JSON text.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}
