import type { QueuedMessage } from '@caravel/middleware';
import { RunPeopleTracker } from './run-people.js';

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
    expect(await queue.drain('t')).toHaveLength(1);
    expect(people.requester).toBe('slack:OTHER');
    expect(people.owner).toBe('slack:OWNER');
    await queue.drain('t');
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

    await queue.drain('t');

    expect(people.requester).toBe('slack:C');
  });
});
