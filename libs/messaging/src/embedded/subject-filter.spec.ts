import { describe, expect, it } from '@jest/globals';
import { filterToRegex, isLiteralSubject, subjectMatches } from './subject-filter.js';

const matchesByRegex = (filter: string, subject: string): boolean =>
  new RegExp(filterToRegex(filter)).test(subject);

describe('subject filters', () => {
  const cases: Array<[filter: string, subject: string, expected: boolean]> = [
    ['thread.*.cmd.run.start.v1.*', 'thread.abc.cmd.run.start.v1.p07', true],
    ['thread.*.cmd.run.start.v1.*', 'thread.abc.cmd.run.start.v1', false],
    ['thread.*.cmd.run.start.v1.*', 'thread.abc.cmd.run.start.v1.p07.extra', false],
    ['thread.*.cmd.>', 'thread.abc.cmd.run.start.v1.p07', true],
    ['thread.*.cmd.>', 'thread.abc.cmd', false],
    ['thread.abc.>', 'thread.abd.evt.x', false],
    ['system.>', 'system.tick', true],
    ['>', 'anything.at.all', true],
    ['a.*.c', 'a..c', false],
    ['sandbox.*.exec', 'sandbox.t1.exec', true],
    ['sandbox.*.exec', 'sandbox.t1.exec2', false],
  ];

  it.each(cases)('%s against %s is %s, in process and as a regex', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
    expect(matchesByRegex(filter, subject)).toBe(expected);
  });

  it('escapes regex syntax in literal tokens so a filter cannot widen itself', () => {
    const regex = filterToRegex('deadletter.a+b.(x|y)');
    expect(new RegExp(regex).test('deadletter.a+b.(x|y)')).toBe(true);
    expect(new RegExp(regex).test('deadletter.aab.x')).toBe(false);
    expect(new RegExp(filterToRegex('a.b')).test('aXb')).toBe(false);
  });

  it('rejects malformed filters with BAD_REQUEST', () => {
    for (const bad of ['a..b', '.a', 'a.>.b', 'a.b*', '']) {
      expect(() => filterToRegex(bad)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    }
  });

  it('tells literal subjects from wildcard filters', () => {
    expect(isLiteralSubject('sandbox.t1.exec')).toBe(true);
    expect(isLiteralSubject('sandbox.*.exec')).toBe(false);
    expect(isLiteralSubject('sandbox.>')).toBe(false);
  });
});
