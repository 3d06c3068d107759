import { parseModelSpec } from '@caravel/agent';
import { readdir, readFile } from 'node:fs/promises';
import { USAGE } from './cli-usage.js';
import { SWEGEN_USAGE } from './swegen/swegen.command.js';

const root = new URL('../../../../', import.meta.url);

/** Every text a user copies a model string from: the README, the docs, .env.example, the help. */
async function documents(): Promise<{ name: string; text: string }[]> {
  const docs = (await readdir(new URL('docs/', root))).filter((file) => file.endsWith('.md'));
  const files = ['README.md', '.env.example', ...docs.map((file) => `docs/${file}`)];
  const read = await Promise.all(
    files.map(async (name) => ({ name, text: await readFile(new URL(name, root), 'utf8') })),
  );
  return [
    ...read,
    { name: 'caravel help', text: USAGE },
    { name: 'swegen help', text: SWEGEN_USAGE },
  ];
}

/** A provider prefix and a concrete name (`anthropic:…` and `scripted:/replay:` are prose). */
const PREFIXED = /\b(?:anthropic|openai|openai-compatible|scripted|replay):(?=[\w<.])[^\s`'"|),]+/g;
/** A value given as a model: `CARAVEL_MODEL=x`, `--model x`, `"model": "x"`, `model: 'x'`. */
const ASSIGNED = /(?:CARAVEL_MODEL=|--model[ =]|"model":\s*"|\bmodel: ')([^\s`'",)]+)/g;
/** A row of the table in docs/models.md: its spec column. */
const TABLE_ROW = /^\| `([^`]+)` +\| (?:anthropic|openai|openai-compatible|scripted|replay) +\|/gm;

function modelStrings(text: string): string[] {
  const assigned = [...text.matchAll(ASSIGNED)].map((m) => m[1] ?? '');
  return [
    ...[...text.matchAll(PREFIXED)].map((m) => m[0]),
    // Placeholders (REF, $VAR, <file>, ...) are not model strings.
    ...assigned.filter((value) => !/^[A-Z_]+$|^\$|^<|^[.…]+$/.test(value)),
    ...[...text.matchAll(TABLE_ROW)].map((m) => m[1] ?? ''),
  ];
}

describe('model strings in the documentation', () => {
  it('finds the ones a newcomer copies first', async () => {
    const found = (await documents()).flatMap((doc) => modelStrings(doc.text));
    expect(found).toEqual(
      expect.arrayContaining([
        'anthropic:claude-sonnet-4-5',
        'scripted:examples/fix-sample.script.yaml',
        'claude-opus-4-6',
        'openai-compatible:qwen2.5-coder:7b',
      ]),
    );
  });

  it('parses every one of them', async () => {
    const refused: string[] = [];
    for (const doc of await documents()) {
      for (const spec of modelStrings(doc.text)) {
        try {
          parseModelSpec(spec);
        } catch (error) {
          refused.push(`${doc.name}: ${spec}: ${(error as Error).message.slice(0, 80)}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });
});
