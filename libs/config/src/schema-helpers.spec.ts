import { commaList, splitList } from './index.js';

describe('comma lists', () => {
  it('splits on commas, trims and drops empty entries', () => {
    expect(splitList(' a, b ,,c ,')).toEqual(['a', 'b', 'c']);
    expect(commaList().parse(undefined)).toEqual([]);
  });

  it('names every entry that does not match the rule', () => {
    const result = commaList({ pattern: /^[a-z]+:\S+$/, shape: '<source>:<id>' }).safeParse(
      'github:octocat, octocat ,slack',
    );
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      '"octocat" is not <source>:<id>',
      '"slack" is not <source>:<id>',
    ]);
  });

  it('lower-cases the entries before checking them when asked', () => {
    const list = commaList({ pattern: /^[a-z]+\/[a-z]+$/, shape: 'owner/name', lowerCase: true });
    expect(list.parse('Acme/Widgets, acme/gears')).toEqual(['acme/widgets', 'acme/gears']);
  });
});
