import { GITHUB_APP_EVENTS, githubAppManifest } from '@caravel/integrations';
import { isAppError } from '@caravel/errors';
import { emitterEventNames } from '@octokit/webhooks';
import { mapGithubEvent } from './github-event.mapper.js';

/** Every webhook event GitHub sends (Octokit's catalogue of them, without their actions). */
const GITHUB_EVENTS = emitterEventNames.filter((name) => !name.includes('.'));

/**
 * Whether the mapper reads `event`: an event it reads has its payload checked, so an empty one
 * is refused as malformed; any other is ignored as not handled, whatever it carries.
 */
function handled(event: string): boolean {
  try {
    const decision = mapGithubEvent(
      { event, deliveryId: 'guid-1', payload: {} },
      { botHandle: 'caravel' },
    );
    return decision.kind !== 'ignore' || decision.reason !== `event ${event} is not handled`;
  } catch (error) {
    if (isAppError(error) && error.code === 'MESSAGE_MALFORMED') return true;
    throw error;
  }
}

describe("the GitHub App's events", () => {
  const subscribed = githubAppManifest({
    ingressUrl: 'https://caravel.example.com',
  }).default_events;

  it('knows the events it is asked about (the catalogue is not empty)', () => {
    expect(GITHUB_EVENTS).toEqual(expect.arrayContaining(['issue_comment', 'push', 'star']));
  });

  it('subscribes to every event the ingress reads', () => {
    const read = GITHUB_EVENTS.filter(handled);
    expect(read.filter((event) => !subscribed.includes(event as never))).toEqual([]);
  });

  it('subscribes to no event the ingress ignores, nor to one GitHub does not send', () => {
    expect(subscribed.filter((event) => !GITHUB_EVENTS.includes(event) || !handled(event))).toEqual(
      [],
    );
    expect(Object.keys(GITHUB_APP_EVENTS).sort()).toEqual([...subscribed].sort());
  });
});
