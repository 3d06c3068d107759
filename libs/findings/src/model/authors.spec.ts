import { describe, expect, it } from '@jest/globals';

import { actorLabel, classifyAuthor, sameActor } from './authors.js';

const OWN = ['caravel-dev[bot]'];

describe('classifyAuthor', () => {
  it('recognises Caravel by its own logins, whatever the case', () => {
    expect(classifyAuthor({ login: 'Caravel-Dev[bot]', type: 'Bot' }, OWN)).toEqual({
      kind: 'caravel',
    });
  });

  it('names the review bots it knows', () => {
    const bots = [
      'Copilot',
      'copilot-pull-request-reviewer[bot]',
      'coderabbitai[bot]',
      'cursor[bot]',
    ].map((login) => classifyAuthor({ login, type: 'Bot' }, OWN));
    expect(bots.map((actor) => (actor.kind === 'bot' ? actor.bot : actor.kind))).toEqual([
      'copilot',
      'copilot',
      'coderabbit',
      'bugbot',
    ]);
  });

  it('records any other bot as other, by its type or its [bot] login', () => {
    expect(classifyAuthor({ login: 'renovate[bot]' }, OWN)).toEqual({
      kind: 'bot',
      login: 'renovate[bot]',
      bot: 'other',
    });
    expect(classifyAuthor({ login: 'ci-helper', type: 'Bot' }, OWN)).toEqual({
      kind: 'bot',
      login: 'ci-helper',
      bot: 'other',
    });
  });

  it('takes everyone else for a person', () => {
    expect(classifyAuthor({ login: 'ada', type: 'User' }, OWN)).toEqual({
      kind: 'person',
      login: 'ada',
    });
  });
});

describe('actorLabel and sameActor', () => {
  it('labels actors for messages and compares logins without case', () => {
    expect(actorLabel({ kind: 'bot', login: 'coderabbitai[bot]', bot: 'coderabbit' })).toBe(
      '@coderabbitai[bot] (coderabbit)',
    );
    expect(actorLabel({ kind: 'person', login: 'ada' })).toBe('@ada');
    expect(sameActor({ kind: 'person', login: 'Ada' }, { kind: 'person', login: 'ada' })).toBe(
      true,
    );
    expect(sameActor({ kind: 'caravel' }, { kind: 'person', login: 'caravel' })).toBe(false);
  });
});
