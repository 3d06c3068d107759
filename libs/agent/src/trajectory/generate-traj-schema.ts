// Writes traj.schema.json from the zod schema:
//   npx jiti libs/agent/src/trajectory/generate-traj-schema.ts
// traj-json-schema.spec.ts fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { renderTrajJsonSchema, TRAJ_JSON_SCHEMA_FILE } from './traj-json-schema.js';

const target = new URL(`./${TRAJ_JSON_SCHEMA_FILE}`, import.meta.url);
writeFileSync(target, renderTrajJsonSchema());
process.stdout.write(`wrote ${target.pathname}\n`);
