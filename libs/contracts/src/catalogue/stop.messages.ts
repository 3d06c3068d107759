import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { actor, threadId, triggerSource } from './common.js';

/**
 * A person asks to stop a thread's work (❌ on a Slack message of the thread, the dashboard's stop
 * action, `/stop` in `caravel attach`). Dispatch cancels the thread's runs that have not started,
 * interrupts its active run with no failure reply and no follow-up run, and acknowledges once in
 * the thread's source channel. Stopping a thread with nothing running does nothing.
 */
export const StopThreadV1 = defineMessage({
  kind: 'cmd',
  name: 'thread.stop',
  version: 1,
  description: "Stop a thread's work: cancel its waiting runs, interrupt its active one.",
  data: z.object({
    threadId,
    /** Where the person asked (`slack` for a ❌ reaction, `synthetic` for the dashboard or CLI). */
    source: triggerSource,
    /** Who asked, as the source names them (a Slack user id, a GitHub login). */
    requestedBy: actor,
    /** The source's id for the request (Slack's event id, the dashboard's request id). */
    requestId: z.string().min(1).max(200),
  }),
  fixture: {
    threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e',
    source: 'slack',
    requestedBy: { externalId: 'U024BE7LH' },
    requestId: 'Ev0PV52K25',
  },
});
