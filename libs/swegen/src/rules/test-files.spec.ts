import { describe, expect, it } from '@jest/globals';
import { identifyTestFiles, isTestFile, stripTestsPrefix } from './test-files.js';
import { placeTestFiles } from './test-layout.js';

describe('isTestFile', () => {
  it.each([
    'tests/test_api.py',
    'pkg/test/helpers.js',
    'src/__tests__/a.tsx',
    'spec/models/user_spec.rb',
    'moshi/src/test/java/Foo.java',
    'test/fixtures/data.json',
    'lib/a/test/snapshots/x.snap',
    'Tests/Upper.txt',
    'pkg/api_test.py',
    'pkg/test_api.py',
    'src/util.test.ts',
    'src/util.spec.mjs',
    'cmd/root_test.go',
    'src/tests.rs',
    'src/parse_test.rs',
    'lib/user_test.rb',
    'lib/test_user.rb',
    'src/Contest.java',
    'src/FooTests.kt',
    'src/TestFoo.java',
    'src/parser_test.cpp',
    'src/test_parser.c',
    'src/UserTest.php',
    'src/testUser.php',
    'src/ParserTests.cs',
  ])('treats %s as a test', (path) => {
    expect(isTestFile(path)).toBe(true);
  });

  it.each([
    'src/index.js',
    'testdata/golden.txt',
    'e2e/login.ts',
    'fixtures/a.json',
    '__mocks__/fs.js',
    'src/testing.py',
    'src/latest.py',
    'src/attest.go',
    'README.md',
    'src/spectest.js',
  ])('treats %s as source', (path) => {
    expect(isTestFile(path)).toBe(false);
  });

  it('keeps the file list order and judges renames by their new name', () => {
    expect(identifyTestFiles(['b/test/x.js', 'a.js', 'a.test.js', 'old_test.go'])).toEqual([
      'b/test/x.js',
      'a.test.js',
      'old_test.go',
    ]);
  });
});

describe('stripTestsPrefix', () => {
  it.each([
    ['tests/unit/a.py', 'unit/a.py'],
    ['Test/a.js', 'a.js'],
    ['__tests__/a.js', 'a.js'],
    ['spec/a_spec.rb', 'a_spec.rb'],
    ['src/test/java/A.java', 'java/A.java'],
    ['moshi/src/test/java/A.java', 'moshi/src/test/java/A.java'],
    ['crates/x/tests/t.rs', 'crates/x/tests/t.rs'],
    ['a.test.js', 'a.test.js'],
  ])('maps %s to %s', (path, expected) => {
    expect(stripTestsPrefix(path)).toBe(expected);
  });
});

describe('placeTestFiles', () => {
  it('keeps the full path where stripping collides with another test or the harness', () => {
    expect(placeTestFiles(['tests/a.js', 'test/a.js', 'test/test.sh', 'test/b.js'])).toEqual([
      { repoPath: 'tests/a.js', taskPath: 'a.js' },
      { repoPath: 'test/a.js', taskPath: 'test/a.js' },
      { repoPath: 'test/test.sh', taskPath: 'test/test.sh' },
      { repoPath: 'test/b.js', taskPath: 'b.js' },
    ]);
  });
});
