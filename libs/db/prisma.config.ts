import { defineConfig } from 'prisma/config';

// Used only for `prisma generate` (Kysely types). Migrations are produced by tools/codegen/db.mjs
// with Prisma's wasm schema engine and applied by @caravel/db's own runner.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
