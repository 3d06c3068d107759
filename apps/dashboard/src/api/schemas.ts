import { z } from 'zod';

/**
 * Response shapes: what the API answers, for the OpenAPI document and the web app's types. Only
 * zod here: the web app's program (DOM, no Node) reads these types and nothing else of the server.
 */
const when = z.string().describe('ISO 8601 time');
const json = z.record(z.string(), z.unknown());

export const errorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});

export const threadResponse = z.object({
  id: z.uuid(),
  source: z.string(),
  title: z.string(),
  repositoryOwner: z.string().nullable(),
  repositoryName: z.string().nullable(),
  repository: json.nullable(),
  options: json,
  replyTo: json,
  lastHumanAt: when.nullable(),
  headSha: z.string().nullable(),
  status: z.string().describe('idle or running'),
  activeRunId: z.uuid().nullable(),
  createdAt: when,
  updatedAt: when,
});

export const runResponse = z.object({
  id: z.uuid(),
  threadId: z.uuid(),
  triggerId: z.uuid(),
  status: z.string().describe('the run status (see GET /api/runs?status)'),
  exitStatus: z.string().nullable(),
  summary: z.string(),
  runner: z.string().nullable(),
  createdAt: when,
  startedAt: when.nullable(),
  finishedAt: when.nullable(),
});

export const runEventResponse = z.object({
  id: z.uuid(),
  threadId: z.uuid(),
  runId: z.uuid().nullable(),
  type: z.string().describe('the message type, e.g. evt.run.step'),
  stream: z.string(),
  sequence: z.number().int().describe('position in the event stream'),
  position: z
    .number()
    .int()
    .describe(
      "the event's place in the thread's index (1, 2, 3…): what ?after and the SSE id count",
    ),
  occurredAt: when,
  data: json,
});

export const planResponse = z.object({
  id: z.uuid(),
  threadId: z.uuid(),
  revision: z.number().int(),
  title: z.string(),
  content: z.string().describe('sanitised markdown'),
  status: z.string(),
  savedBy: z.string().nullable(),
  approvedBy: z.string().nullable(),
  approvedAt: when.nullable(),
  feedback: z.string().nullable(),
  createdAt: when,
});

export const meResponse = z.object({
  login: z.string(),
  name: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: z.enum(['member', 'admin']),
  expiresAt: when,
});

export const authStatusResponse = z.object({
  signInEnabled: z.boolean(),
  signedIn: z.boolean(),
});

export const signInRefusalResponse = z.object({
  code: z.string().describe("the refusal's error code"),
  message: z.string().describe('why the sign-in was refused, in the words of the dashboard'),
});

export const profileResponse = z.object({
  identity: z.string(),
  model: z.string().nullable(),
  reasoningEffort: z.string().nullable(),
  defaultRepository: z.string().nullable(),
  draftPullRequests: z.boolean(),
  alwaysCreatePullRequests: z.boolean().nullable(),
  fallbackModel: z.string().nullable(),
  autofixCi: z.boolean().nullable(),
  subagentModel: z.string().nullable(),
  updatedAt: when.nullable(),
});

export const enabledRepositoryResponse = z.object({
  repository: z.string().describe('owner/name'),
  agent: z.boolean(),
  autoReview: z.boolean(),
  ciAutofix: z.boolean(),
  updatedBy: z.string(),
  updatedAt: when,
});

const findingStatus = z.enum(['open', 'resolved', 'dismissed']);
const findingCounts = z.object({ open: z.number(), resolved: z.number(), dismissed: z.number() });

export const reviewedPullRequestResponse = z.object({
  pullRequest: z.object({ owner: z.string(), repo: z.string(), number: z.number().int() }),
  url: z.string().describe('the pull request on the code host'),
  threadId: z.uuid().describe("the pull request's reviewer thread"),
  headSha: z.string().nullable(),
  lastReviewedSha: z.string().nullable(),
  counts: findingCounts,
  updatedAt: when,
});

export const reviewLedgerResponse = z.object({
  pullRequest: z.object({ owner: z.string(), repo: z.string(), number: z.number().int() }),
  url: z.string().describe('the pull request on the code host'),
  threadId: z.uuid().describe("the pull request's reviewer thread"),
  headSha: z.string().nullable(),
  lastReviewedSha: z.string().nullable(),
  verdict: z
    .object({
      event: z.enum(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']),
      reason: z.string(),
      posted: z.boolean().describe('false: the publish decided the verdict but posted nothing'),
      reviewId: z.string().nullable(),
    })
    .nullable()
    .describe("the latest publish's verdict; null before the first"),
  notReviewed: z
    .object({ reason: z.string(), headSha: z.string().nullable(), at: when.nullable() })
    .nullable()
    .describe('why the head asked about was not reviewed (reviews off...); null once one starts'),
  counts: findingCounts,
  findings: z.array(
    z.object({
      id: z.string(),
      raisedBy: z.object({
        kind: z.enum(['caravel', 'person', 'bot']),
        name: z.string().describe('caravel, or the login of the person or bot'),
      }),
      severity: z.string(),
      confidence: z.string(),
      category: z.string(),
      title: z.string(),
      description: z.string(),
      suggestion: z.string().nullable(),
      status: findingStatus,
      resolution: z.string().nullable().describe('fixed_by_commit, code_removed or dismissed'),
      anchor: z.object({
        file: z.string(),
        startLine: z.number().int().nullable(),
        endLine: z.number().int().nullable(),
        sha: z.string(),
      }),
      inDiff: z.boolean(),
      firstSeenSha: z.string(),
      lastConfirmedSha: z.string(),
      links: z.array(z.string()).describe('the review comments it was raised in'),
      replies: z.number().int(),
      updatedAt: when,
    }),
  ),
});

export const personalTokenResponse = z.object({
  id: z.string().describe('the public part of the token'),
  name: z.string(),
  scope: z.enum(['read', 'act']),
  createdAt: when,
  expiresAt: when,
  lastUsedAt: when.nullable(),
  revokedAt: when.nullable(),
});

export const userInstructionsResponse = z.object({
  identity: z.string().describe('source:id, e.g. github:octocat'),
  instructions: z.string().describe('empty when the person keeps none'),
  updatedAt: when.nullable(),
});

/** One person's handles across sources (the identity map: who a Slack or Linear author is). */
export const identityResponse = z.object({
  id: z.uuid(),
  githubLogin: z.string().nullable(),
  slackUserId: z.string().nullable(),
  email: z.string().nullable(),
  linearUserId: z.string().nullable(),
  jiraAccountId: z.string().nullable(),
  displayName: z.string(),
});

/** One row of the supported-models table (docs/models.md). */
export const supportedModelResponse = z.object({
  provider: z.string().describe('anthropic, openai, openai-compatible, scripted or replay'),
  modelId: z.string().describe('what a model setting names after `<provider>:`'),
  label: z.string(),
  contextWindow: z
    .number()
    .nullable()
    .describe('input tokens per call; null: the endpoint decides'),
  inputPricePerMillion: z.number().describe('US dollars per million input tokens'),
  outputPricePerMillion: z.number().describe('US dollars per million output tokens'),
  effortLevels: z.array(z.string()).describe('the reasoning efforts it takes; empty: none'),
  defaultEffort: z.string().nullable(),
});

export const teamDefaultsResponse = z.object({
  model: z.string().nullable().describe("null: the environment's CARAVEL_MODEL"),
  reasoningEffort: z.string().nullable().describe("for this model; null: the model's default"),
  fallbackModel: z.string().nullable().describe("null: the environment's CARAVEL_FALLBACK_MODEL"),
  subagentModel: z.string().nullable().describe("null: CARAVEL_SUBAGENT_MODEL, else the run's"),
  draftPullRequests: z.boolean().nullable().describe('for people with no profile; null: drafts'),
  alwaysCreatePullRequests: z
    .boolean()
    .nullable()
    .describe("for people who chose nothing; null: the environment's RUN_ALWAYS_CREATE_PRS"),
  updatedBy: z.string().nullable().describe('null: never saved (the environment applies)'),
  updatedAt: when.nullable(),
});

export const repositoryInstructionsResponse = z.object({
  repository: z.string().describe('owner/name, lower-cased'),
  instructions: z.string().describe('empty when the repository has none'),
  updatedBy: z.string().nullable(),
  updatedAt: when.nullable(),
});

export const budgetLimitResponse = z.object({
  scope: z.string().describe('team, repository or person'),
  subject: z.string().describe('team; owner/name lower-cased; source:id'),
  budgetUsd: z.number().describe('dollars one run may spend'),
  updatedBy: z.string(),
  updatedAt: when,
});

export const budgetPauseResponse = z.object({
  runId: z.uuid(),
  threadId: z.uuid(),
  budgetUsd: z.number().describe("the paused run's budget"),
  spentUsd: z.number(),
  pausedAt: when,
  grantedUsd: z.number().nullable().describe('set once granted, until a run continues it'),
  grantedBy: z.string().nullable(),
  grantedAt: when.nullable(),
  mayGrant: z
    .array(z.string())
    .describe("source:id of who may grant: the thread's owner, then DISPATCH_BUDGET_ADMINS"),
});
