/** A plan revision as the store saved it. */
export interface SavedPlan {
  id: string;
  revision: number;
  title: string;
  status: 'awaiting_approval' | 'approved';
  approvedBy: string | null;
}

/** The thread's plans (the runner binds it to the run's thread). */
export interface PlanStorePort {
  /** Saves a sanitised plan as the thread's next revision. */
  save(plan: { title: string; content: string; savedBy: string | null }): Promise<SavedPlan>;
  /** Approves the latest revision; rejects with NOT_FOUND when the thread has no plan. */
  approveLatest(approval: { approvedBy: string; feedback: string | null }): Promise<SavedPlan>;
}

/** Who asked for this run and who owns its thread (`source:id`, e.g. `slack:U123`). */
export interface RunPeople {
  /** The person whose message started the run, or null when a system event did. */
  requester: string | null;
  /** The thread's owner (the person who started it), or null when unknown. */
  owner: string | null;
  /**
   * Whether `person` wrote `words` in a message this run took (its request, a follow-up),
   * whitespace and case aside: what a tool acting on a person's say-so checks, so text the agent
   * read elsewhere (an issue, a file) cannot act for them.
   */
  wrote(person: string, words: string): boolean;
}

/** Per-user standing instructions. */
export interface UserInstructionsPort {
  save(subject: string, instructions: string): Promise<void>;
}

/** A problem with the platform itself (not the task) the agent reports to its operators. */
export interface PlatformIssue {
  title: string;
  description: string;
  severity: 'low' | 'medium' | 'high';
}

/** Where platform issues go (the runner records them on the run's event log). */
export interface PlatformIssueReporter {
  report(issue: PlatformIssue): Promise<{ id: string }>;
}
