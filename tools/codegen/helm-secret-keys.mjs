#!/usr/bin/env node
// Writes the Helm chart's map of service -> the secret keys its config schema reads
// (infra/helm/caravel/files/secret-keys.yaml; `npm run helm:secret-keys`). The cli's unit test
// fails when the committed file is stale.
import { writeFile } from 'node:fs/promises';
import { buildWorkspace, root } from './build-workspace.mjs';

buildWorkspace();
const { SERVICES, SECRET_KEYS_FILE, renderSecretKeys } = await import('@caravel/cli');
await writeFile(`${root}${SECRET_KEYS_FILE}`, renderSecretKeys(SERVICES));
process.stdout.write(`wrote ${SECRET_KEYS_FILE}\n`);
