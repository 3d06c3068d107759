import type { PullRequestRef } from '../ports/scm.port.js';

/**
 * Ports the channel tools are bound to. They are declared here, in the domain, and implemented
 * by `@caravel/integrations` (GitHub, Slack, Linear, Jira, Confluence, the web). Every method
 * raises a coded `AppError` on failure (`UNAUTHENTICATED`, `NOT_FOUND`, `RATE_LIMITED`, ...);
 * an integration without credentials raises `PRECONDITION_FAILED` saying what to configure.
 */

/** A message read from a channel: its text is untrusted until the tool wraps it. */
export interface ChannelMessage {
  id: string;
  /** Who wrote it, in the channel's terms (Slack user id, email, display name). */
  author: string;
  text: string;
  /** ISO timestamp when the channel gives one. */
  at?: string;
  /** True for messages posted by a bot (Caravel itself included). */
  bot?: boolean;
}

/** A pull-request review the agent asks for. */
export interface ReviewRequest {
  pullRequest: number;
  /** People (logins) asked to review; empty to ask only for Caravel's reviewer. */
  reviewers: string[];
  /** The user's instructions for the review, verbatim. */
  instructions?: string;
  /** True only when the user explicitly asked for an approve/request-changes verdict. */
  verdictRequested: boolean;
}

/** What a review request did: the people asked, and whether Caravel's reviewer was. */
export interface ReviewRequested {
  pullRequest: PullRequestRef;
  requested: string[];
  /** Set when Caravel's reviewer took the request: the head it will review. */
  reviewer?: { headSha: string };
}

/** Requests reviews of the thread repository's pull requests. */
export interface ReviewRequester {
  requestReview(request: ReviewRequest): Promise<ReviewRequested>;
}

/** The Slack thread a run came from, and Slack beyond it. */
export interface SlackThreadPort {
  /** Posts `text` (markdown) in the run's thread; returns the message ts. */
  replyInThread(text: string): Promise<{ ts: string }>;
  /** Adds an emoji reaction (name without colons) to a message, by default the triggering one. */
  addReaction(name: string, messageTs?: string): Promise<void>;
  /** The thread's messages, oldest first, at most `limit`. */
  readThread(limit: number): Promise<ChannelMessage[]>;
  /** Starts a new thread in `channel`; returns where it is. */
  startThread(channel: string, text: string): Promise<{ channel: string; ts: string }>;
}

/** An issue as an issue tracker reports it. */
export interface TrackerIssue {
  id: string;
  /** The human key (`ENG-12`, `PROJ-3`). */
  key: string;
  title: string;
  description: string;
  url: string;
  status?: string;
  assignee?: string;
  /** Who created it, as the tracker names accounts (Jira: the accountId), when it says. */
  creator?: string;
}

/** Fields of an issue to create. */
export interface NewTrackerIssue {
  /** The Linear team id or the Jira project key. */
  container: string;
  title: string;
  description?: string;
  /** Linear priority 0-4, or a Jira issue type name when `kind` is given. */
  priority?: number;
  kind?: string;
}

/** Fields of an issue to change; absent fields stay as they are. */
export interface TrackerIssueChanges {
  title?: string;
  description?: string;
  priority?: number;
}

/** Where issues can be grouped (a Linear team, a Jira project). */
export interface TrackerContainer {
  id: string;
  key: string;
  name: string;
}

/** An issue tracker (Linear, Jira) as the agent uses it. Descriptions and comments are markdown. */
export interface IssueTrackerPort {
  comment(issue: string, markdown: string): Promise<{ id: string }>;
  createIssue(issue: NewTrackerIssue): Promise<TrackerIssue>;
  updateIssue(issue: string, changes: TrackerIssueChanges): Promise<TrackerIssue>;
  getIssue(issue: string): Promise<TrackerIssue>;
  getComments(issue: string, limit: number): Promise<ChannelMessage[]>;
  listContainers(): Promise<TrackerContainer[]>;
}

/** Linear adds deletion and full-text search to the tracker port. */
export interface LinearPort extends IssueTrackerPort {
  deleteIssue(issue: string): Promise<void>;
  searchIssues(query: string, limit: number): Promise<TrackerIssue[]>;
}

/** A Confluence page, its body as markdown. */
export interface WikiPage {
  id: string;
  title: string;
  markdown: string;
  version: number;
  url: string;
}

/** One search hit. */
export interface WikiSearchHit {
  id: string;
  title: string;
  url: string;
  excerpt: string;
}

/** Confluence as the agent uses it. */
export interface WikiPort {
  getPage(id: string): Promise<WikiPage>;
  createPage(page: {
    space: string;
    title: string;
    markdown: string;
    parentId?: string;
  }): Promise<WikiPage>;
  updatePage(id: string, changes: { title?: string; markdown: string }): Promise<WikiPage>;
  comment(pageId: string, markdown: string): Promise<{ id: string }>;
  search(query: string, limit: number): Promise<WikiSearchHit[]>;
}

/** An HTTP request the agent makes from the host (never from the sandbox). */
export interface HttpRequestSpec {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** An HTTP response, body as text (truncated by the adapter). */
export interface HttpResponseSummary {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The URL finally answered, after redirects. */
  url: string;
}

/** Outbound HTTP with SSRF protection (public addresses only, redirects re-checked). */
export interface WebPort {
  request(spec: HttpRequestSpec): Promise<HttpResponseSummary>;
  /** GETs a page and returns it as readable text (HTML reduced to markdown-ish text). */
  fetchText(url: string): Promise<HttpResponseSummary>;
}

/** A web search result. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A web search provider (Tavily, Brave, a company search appliance, ...). */
export interface WebSearchProvider {
  search(query: string, limit: number): Promise<WebSearchResult[]>;
}
