import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { channelTools } from '../channel/channel-tools.js';
import {
  MANAGE_BABY_SIT_TOOL_NAME,
  manageBabySitTool,
  type BabySitRequest,
  type BabySitter,
} from './manage-baby-sit.tool.js';

const URL = 'https://github.com/acme/widgets/pull/42';

function sitter(fail = false): BabySitter & { asked: BabySitRequest[] } {
  const asked: BabySitRequest[] = [];
  return {
    asked,
    manage(request) {
      asked.push(request);
      if (fail) return Promise.reject(new AppError('BAD_REQUEST', 'not a pull request url'));
      return Promise.resolve({
        watching: request.action === 'start',
        pullRequest: 'acme/widgets#42',
        message: `${request.action}ed`,
      });
    },
  };
}

describe('manage_baby_sit', () => {
  it("asks dispatch to start or stop the pull request's watch and tells the model its answer", async () => {
    const bound = sitter();
    const tool = manageBabySitTool(bound);
    expect(await tool.invoke({ action: 'start', pull_request_url: URL })).toMatchObject({
      ok: true,
      observation: 'started',
    });
    expect(await tool.invoke({ action: 'stop', pull_request_url: URL })).toMatchObject({
      observation: 'stoped',
    });
    expect(bound.asked).toEqual([
      { action: 'start', pullRequestUrl: URL },
      { action: 'stop', pullRequestUrl: URL },
    ]);
  });

  it("gives the model dispatch's refusal as an observation", async () => {
    const answer = await manageBabySitTool(sitter(true)).invoke({
      action: 'start',
      pull_request_url: 'https://example.com/not-a-pr',
    });
    expect(answer).toMatchObject({
      ok: false,
      observation: 'Error (BAD_REQUEST): not a pull request url',
    });
  });

  it('is one of the channel tools only when the runner binds dispatch', () => {
    const names = (ports: Parameters<typeof channelTools>[0]) =>
      channelTools(ports).map((tool) => tool.name);
    expect(names({ babySitter: sitter() })).toEqual([MANAGE_BABY_SIT_TOOL_NAME]);
    expect(names({})).not.toContain(MANAGE_BABY_SIT_TOOL_NAME);
  });
});
