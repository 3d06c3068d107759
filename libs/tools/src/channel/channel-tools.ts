import type { CaravelTool } from '../core/tool-definition.js';
import type {
  IssueTrackerPort,
  LinearPort,
  ReviewRequester,
  SlackThreadPort,
  WebPort,
  WebSearchProvider,
  WikiPort,
} from './channel.ports.js';
import type { ScmReadPort } from '../ports/scm.port.js';
import { githubReadTools } from './github.tools.js';
import { requestPrReviewTool } from './review.tools.js';
import { slackTools } from './slack.tools.js';
import { jiraTools, linearTools } from './tracker.tools.js';
import { confluenceTools, webTools } from './wiki-and-web.tools.js';
import { manageBabySitTool, type BabySitter } from '../tools/manage-baby-sit.tool.js';
import { scheduleThreadWakeupTool, type WakeupScheduler } from '../tools/schedule-wakeup.tool.js';

/**
 * The integrations a run's channel tools are bound to. Absent ports mean absent tools: Slack
 * tools exist only for runs that came from Slack (`slack` is the run's thread), and an
 * integration the team has not configured is still present but answers with a clean error.
 */
export interface ChannelPorts {
  slack?: SlackThreadPort;
  linear?: LinearPort;
  jira?: IssueTrackerPort;
  confluence?: WikiPort;
  reviews?: ReviewRequester;
  /** The thread repository's pull requests and issues on GitHub: the `github_*` read tools. */
  github?: ScmReadPort;
  web?: WebPort;
  webSearch?: WebSearchProvider;
  /** The run's thread in dispatch: `schedule_thread_wakeup`. */
  wakeups?: WakeupScheduler;
  /** Dispatch's CI watches: `manage_baby_sit`. */
  babySitter?: BabySitter;
}

/**
 * The channel tools for the ports given, in a stable order (web, review, trackers, Slack, then
 * the thread's wakeups and CI watches).
 */
export function channelTools(ports: ChannelPorts): CaravelTool[] {
  return [
    ...(ports.web ? webTools(ports.web, ports.webSearch) : []),
    ...(ports.reviews ? [requestPrReviewTool(ports.reviews)] : []),
    ...(ports.github ? githubReadTools(ports.github) : []),
    ...(ports.linear ? linearTools(ports.linear) : []),
    ...(ports.jira ? jiraTools(ports.jira) : []),
    ...(ports.confluence ? confluenceTools(ports.confluence) : []),
    ...(ports.slack ? slackTools(ports.slack) : []),
    ...(ports.wakeups ? [scheduleThreadWakeupTool(ports.wakeups)] : []),
    ...(ports.babySitter ? [manageBabySitTool(ports.babySitter)] : []),
  ];
}
