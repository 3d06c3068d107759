import { z } from 'zod';
import { defineRequest } from '../define-request.js';

/**
 * The id these lookups are asked on. A request's subject is `<service>.<threadId>.<op>`, and a
 * lookup concerns no thread: every one goes on this fixed id, which no thread has.
 */
export const GITHUB_LOOKUP_SUBJECT_ID = '00000000-0000-4000-8000-000000000000';

/** A GitHub login, organization or repository name, as it was given (GitHub judges it). */
const githubName = z.string().min(1).max(200);

/** The repository asked about: the App is asked with its installation's token. */
const repository = z.object({ owner: githubName, name: githubName });

/**
 * A question dispatch answers as the GitHub App: `answered: true` with `answer`, or `false` when
 * it has no App to ask with (the asker refuses as it would without the App: it does not know the
 * App's settings itself). A GitHub failure comes back as the responder's coded error.
 */
function githubLookup<Q extends z.ZodObject, A extends z.ZodRawShape>(
  op: string,
  request: Q,
  answer: A,
  description: string,
) {
  const response = z.discriminatedUnion('answered', [
    z.object({ answered: z.literal(true), ...answer }),
    z.object({ answered: z.literal(false) }),
  ]);
  return defineRequest({ service: 'dispatch', op, request, response, description });
}

/**
 * Whether `login` is a member of the organization `org` (asked with the installation of a
 * repository the organization owns), asked of dispatch, which holds the GitHub App: the
 * internet-facing ingress does not.
 */
export const GithubOrgMembershipLookup = githubLookup(
  'github-org-membership',
  z.object({ org: githubName, login: githubName, repository }),
  { member: z.boolean() },
  'Whether a GitHub login is a member of an organization, asked as the GitHub App.',
);

/** A person's role on a repository as GitHub names it; `none`: they cannot see it. */
export const githubRepositoryPermission = z.enum([
  'admin',
  'maintain',
  'write',
  'triage',
  'read',
  'none',
]);

/**
 * What `login` may do on a repository, asked of dispatch as the GitHub App. A repository the App
 * cannot see comes back as the responder's `NOT_FOUND`.
 */
export const GithubRepositoryPermissionLookup = githubLookup(
  'github-repository-permission',
  z.object({ login: githubName, repository }),
  { permission: githubRepositoryPermission },
  "A GitHub login's role on a repository, asked as the GitHub App.",
);

/** Answers of {@link GithubOrgMembershipLookup} and {@link GithubRepositoryPermissionLookup}. */
export type OrgMembershipLookupResponse = ReturnType<
  typeof GithubOrgMembershipLookup.parseResponse
>;
export type RepositoryPermissionLookupResponse = ReturnType<
  typeof GithubRepositoryPermissionLookup.parseResponse
>;
