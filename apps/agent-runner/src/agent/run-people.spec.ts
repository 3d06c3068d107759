import type { QueuedMessage } from '@caravel/middleware';
import { renderQueuedMessage } from '@caravel/middleware/queued-message';
import { RunPeopleTracker, requesterOf } from './run-people.js';

function queueOf(...batches: QueuedMessage[][]) {
  return { drain: () => Promise.resolve(batches.shift() ?? []) };
}

describe('RunPeopleTracker', () => {
  it('answers the requester until the run takes a message from someone else', async () => {
    const people = new RunPeopleTracker('slack:OWNER', 'slack:OWNER');
    const queue = people.following(
      queueOf([{ id: '1', text: 'approved', author: 'slack:OTHER' }], []),
    );

    expect(people.requester).toBe('slack:OWNER');
    expect(await queue.drain('t', () => false)).toHaveLength(1);
    expect(people.requester).toBe('slack:OTHER');
    expect(people.owner).toBe('slack:OWNER');
    await queue.drain('t', () => false);
    expect(people.requester).toBe('slack:OTHER');
  });

  it('takes the last author of a batch, and a person’s command does not make them the speaker', async () => {
    const people = new RunPeopleTracker('slack:A', 'slack:A');
    const queue = people.following(
      queueOf([
        { id: '1', text: 'first', author: 'slack:B' },
        { id: '2', text: 'then', author: 'slack:C' },
        { id: '3', text: '$ ls', author: 'slack:D', metadata: { humanStep: {} } },
      ]),
    );

    await queue.drain('t', () => false);

    expect(people.requester).toBe('slack:C');
  });
});

describe("RunPeopleTracker's record of who wrote what", () => {
  it('knows the words of the request and of the follow-ups the run took, by their authors', async () => {
    const people = new RunPeopleTracker('slack:A', 'slack:A', 'Remember:\n  answer me in French.');
    const queue = people.following(
      queueOf([
        { id: '1', text: 'Also keep commits small, please.', author: 'slack:B' },
        { id: '2', text: '$ always push to main', author: 'slack:A', metadata: { humanStep: {} } },
      ]),
    );
    await queue.drain('t', () => false);

    expect(people.wrote('slack:A', 'answer me in french')).toBe(true);
    expect(people.wrote('slack:B', 'keep commits small')).toBe(true);
    // Not someone else's words, not a command's, and never an empty quote.
    expect(people.wrote('slack:A', 'keep commits small')).toBe(false);
    expect(people.wrote('slack:A', 'always push to main')).toBe(false);
    expect(people.wrote('slack:A', '   ')).toBe(false);
  });

  it("credits a run of follow-ups' opening to its author only when nobody else wrote in it", () => {
    const rendered = (author: string, text: string) =>
      renderQueuedMessage({ id: author, author, text }, true);
    const alone = [rendered('slack:A', 'remember: answer in French'), rendered('slack:A', 'ok')];
    const mixed = [rendered('slack:A', 'hello'), rendered('slack:B', 'remember: push to main')];

    expect(
      new RunPeopleTracker('slack:A', 'slack:A', alone.join('\n\n')).wrote(
        'slack:A',
        'answer in French',
      ),
    ).toBe(true);
    expect(
      new RunPeopleTracker('slack:A', 'slack:A', mixed.join('\n\n')).wrote(
        'slack:A',
        'push to main',
      ),
    ).toBe(false);
  });
});

describe('requesterOf', () => {
  it('names the person who asked as source:id', () => {
    expect(requesterOf({ source: 'slack', requestedBy: { externalId: 'U123' } })).toBe(
      'slack:U123',
    );
    expect(requesterOf({ requestedBy: { externalId: 'cli' } })).toBe('synthetic:cli');
  });

  it('keeps the name a run of follow-ups already gives its first author', () => {
    expect(requesterOf({ requestedBy: { externalId: 'github:octocat' } })).toBe('github:octocat');
    // The thread's source is set too: the author may have written from another source.
    expect(requesterOf({ source: 'slack', requestedBy: { externalId: 'slack:U123' } })).toBe(
      'slack:U123',
    );
    expect(requesterOf({ source: 'github', requestedBy: { externalId: 'slack:U9' } })).toBe(
      'slack:U9',
    );
  });
});
