import { renderEnvExample } from '@caravel/config';
import { readFile } from 'node:fs/promises';
import { ENV_SECTIONS, SERVICES } from './services.js';

const root = new URL('../../../', import.meta.url);

describe('.env.example', () => {
  it('is what the config schemas render (run `npm run env:example` after changing a schema)', async () => {
    const committed = await readFile(new URL('.env.example', root), 'utf8');
    expect(committed).toBe(renderEnvExample(ENV_SECTIONS));
  });

  it('has a section for the embedded host and for each of the seven services', () => {
    expect(ENV_SECTIONS.map((s) => s.title.split(' ')[0])).toEqual([
      'embedded',
      ...SERVICES.map((s) => s.name),
    ]);
    expect(new Set(SERVICES.map((s) => s.name)).size).toBe(7);
  });
});
