import { documented, envSchemaOf, metaOf } from '@caravel/config';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { renderSecretKeys, SECRET_KEYS_FILE, secretKeysOf } from './secret-keys.js';
import { ENV_SECTIONS, SERVICES } from './services.js';

const root = new URL('../../../', import.meta.url);

/** Names that say "credential": a key so named without `secret: true` would miss its pods. */
const CREDENTIAL_NAME = /(SECRET|TOKEN|PASSWORD|PRIVATE_KEY|API_KEY|_KEYS)(_PREVIOUS)?$/;

describe('the chart map of secret keys', () => {
  it('is what the config schemas render (run `npm run helm:secret-keys` after changing a schema)', async () => {
    const committed = await readFile(new URL(SECRET_KEYS_FILE, root), 'utf8');
    expect(committed).toBe(renderSecretKeys(SERVICES));
  });

  it('flags every key named like a credential as secret, in every section', () => {
    const unflagged = ENV_SECTIONS.flatMap((section) =>
      Object.entries(envSchemaOf(section.schema).shape)
        .filter(([key, value]) => CREDENTIAL_NAME.test(key) && !metaOf(value as z.ZodType)?.secret)
        .map(([key]) => `${section.title}: ${key}`),
    );
    expect(unflagged).toEqual([]);
  });

  it('lists only the flagged keys a schema has, leaving DATABASE_URL to its own Secret', () => {
    const key = (secret: boolean) =>
      documented(z.string().optional(), { description: 'a key', secret });
    const schema = z.object({
      DATABASE_URL: key(true),
      SLACK_SIGNING_SECRET: key(true),
      SLACK_BOT_USER_ID: key(false),
      JIRA_API_TOKEN: key(true),
    });
    expect(secretKeysOf(schema)).toEqual(['SLACK_SIGNING_SECRET', 'JIRA_API_TOKEN']);
    expect(
      renderSecretKeys([
        { name: 'a', schema },
        { name: 'b', schema: z.object({}) },
      ]),
    ).toMatch(/\na:\n {2}- SLACK_SIGNING_SECRET\n {2}- JIRA_API_TOKEN\nb: \[\]\n$/);
  });
});
