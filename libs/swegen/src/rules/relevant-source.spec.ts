import { describe, expect, it } from '@jest/globals';
import { checkSubstantiality, isRelevantSource } from './relevant-source.js';

describe('isRelevantSource', () => {
  it.each([
    ['src/a.js', true],
    ['README.md', true],
    ['.gitignore', true],
    ['go.mod', true],
    ['testdata/golden.txt', true],
    ['internal/testutils/x.go', true],
    ['test/helpers.js', false],
    ['src/a.test.js', false],
    ['.github/workflows/ci.yml', false],
    ['pkg/.gitlab/x.yml', false],
    ['dist/bundle.js', false],
    ['packages/a/node_modules/x/index.js', false],
    ['pkg/foo.egg-info/PKG-INFO', false],
    ['target/debug/x', false],
  ])('%s is relevant: %s', (path, expected) => {
    expect(isRelevantSource(path)).toBe(expected);
  });

  it('keeps root-level names that merely start like a build directory', () => {
    for (const path of [
      'build.rs',
      'binding/json.go',
      'output.py',
      'distutils/x.py',
      'objects.c',
      'src/layout/a.ts',
    ]) {
      expect(isRelevantSource(path)).toBe(true);
      expect(isRelevantSource(path, 'swegen-0.1')).toBe(false);
    }
  });

  it('counts test*.java as source only under the swegen-0.1 rules', () => {
    expect(isRelevantSource('src/TestUtil.java')).toBe(false);
    expect(isRelevantSource('src/TestUtil.java', 'swegen-0.1')).toBe(true);
  });

  it('never matches the literal *.egg-info under swegen-0.1', () => {
    expect(isRelevantSource('pkg/foo.egg-info/PKG-INFO', 'swegen-0.1')).toBe(true);
  });
});

describe('checkSubstantiality', () => {
  const rule = { minSourceFiles: 3, maxSourceFiles: 10, compat: 'caravel' as const };

  it('fails below the minimum, naming the count', () => {
    const verdict = checkSubstantiality(['a.js', 'b.js', 'test/a.js', 'dist/x.js'], rule);
    expect(verdict).toMatchObject({ ok: false, reason: '2 source files, fewer than 3' });
  });

  it('passes inside the bounds and lists what it counted', () => {
    const verdict = checkSubstantiality(['a.js', 'b.js', 'c.js', 'a.test.js'], rule);
    expect(verdict).toEqual({ ok: true, sourceFiles: ['a.js', 'b.js', 'c.js'] });
  });

  it('fails above the maximum', () => {
    const files = Array.from({ length: 11 }, (_, i) => `src/f${i}.js`);
    expect(checkSubstantiality(files, rule)).toMatchObject({
      ok: false,
      reason: '11 source files, more than 10',
    });
  });

  it('sees every file of a long list, but only the first 30 under swegen-0.1', () => {
    const files = [
      ...Array.from({ length: 30 }, (_, i) => `test/t${i}.js`),
      'a.js',
      'b.js',
      'c.js',
    ];
    expect(checkSubstantiality(files, rule).ok).toBe(true);
    expect(checkSubstantiality(files, { ...rule, compat: 'swegen-0.1' })).toMatchObject({
      ok: false,
      sourceFiles: [],
    });
  });
});
