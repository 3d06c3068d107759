import type { ManageBabySitResponse } from '@caravel/contracts';
import { z } from 'zod';
import { defineChannelTool } from '../channel/channel-tool.js';
import type { CaravelTool } from '../core/tool-definition.js';

/** The tool's name, as the model and the trajectories see it. */
export const MANAGE_BABY_SIT_TOOL_NAME = 'manage_baby_sit';

/** One request to start or stop watching a pull request's CI. */
export interface BabySitRequest {
  action: 'start' | 'stop';
  pullRequestUrl: string;
}

/**
 * Starts or stops dispatch's CI watch of a pull request for the run's thread (the runner binds it
 * to the run and sends dispatch's `ManageBabySit` request).
 */
export interface BabySitter {
  manage(request: BabySitRequest): Promise<ManageBabySitResponse>;
}

/**
 * `manage_baby_sit`: when a person asks the agent to keep an eye on a pull request's CI (or to
 * stop), it starts (or stops) dispatch's watch: failing checks then get a fix run on this thread,
 * and the person hears once when CI stays green. Only on a person's request: the agent's own pull
 * requests are watched without it.
 */
export function manageBabySitTool(sitter: BabySitter): CaravelTool<ManageBabySitResponse> {
  return defineChannelTool({
    name: MANAGE_BABY_SIT_TOOL_NAME,
    description:
      'Start or stop watching a pull request\'s CI, only when a person asks you to ("keep an ' +
      'eye on CI", "babysit this PR", "stop watching it"). While watched, failing checks bring ' +
      'you back to this thread to fix them, and the person is told once CI stays green.',
    effect: 'control',
    input: z.strictObject({
      action: z.enum(['start', 'stop']).describe('start or stop watching.'),
      pull_request_url: z
        .string()
        .trim()
        .url()
        .max(2_000)
        .describe('The pull request, e.g. https://github.com/acme/widgets/pull/42.'),
    }),
    run: (input) => sitter.manage({ action: input.action, pullRequestUrl: input.pull_request_url }),
    observe: (answer) => answer.message,
  });
}
