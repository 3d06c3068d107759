import { autofixToggle } from './autofix-toggle.js';

describe('autofixToggle', () => {
  it.each([
    ['@caravel autofix off', 'off'],
    ['please @Caravel  AUTOFIX On now', 'on'],
    ['@caravel[bot] autofix off', 'off'],
    ['@caravel autofix off\nactually @caravel autofix on', 'on'],
    ['@caravel fix the tests', null],
    ['@caravel autofixing on', null],
    ['@caravel autofix onboarding', null],
    ['@someone-else autofix off', null],
    ['caravel autofix off', null],
  ])('%j -> %s', (comment, expected) => {
    expect(autofixToggle(comment, 'caravel')).toBe(expected);
  });

  it('takes the bot login as text, not as a pattern', () => {
    expect(autofixToggle('@ci.bot autofix off', 'ci.bot')).toBe('off');
    expect(autofixToggle('@cixbot autofix off', 'ci.bot')).toBeNull();
  });
});
