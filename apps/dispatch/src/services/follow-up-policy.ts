import type { TriggerSource } from '@caravel/contracts';
import type { FollowUpDelivery } from '@caravel/db';

/**
 * How a message for a busy thread reaches its run. A person writing in a source channel (a PR
 * comment, a Slack reply, a Linear or Jira comment) redirects the work at once: the run is
 * interrupted at its last checkpoint and the next one resumes with the message. Synthetic
 * messages (the CLI, the dashboard, background nudges) join the run before its next model call,
 * so they never throw away work in progress.
 */
export function followUpDelivery(source: TriggerSource): FollowUpDelivery {
  switch (source) {
    case 'github':
    case 'slack':
    case 'linear':
    case 'jira':
    case 'confluence':
      return 'interrupt';
    case 'synthetic':
      return 'inject';
  }
}
