import { z } from 'zod';

const repoObject = z.object({
  full_name: z.string(),
  clone_url: z.string(),
  fork: z.boolean().optional(),
  parent: z.object({ full_name: z.string() }).optional(),
});

/** The fields of GitHub's pull request object (`GET /repos/{o}/{r}/pulls/{n}`) the pipeline reads. */
export const githubPullSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().optional(),
  merged: z.boolean().optional(),
  merged_at: z.string().nullable().optional(),
  created_at: z.string(),
  html_url: z.string(),
  merge_commit_sha: z.string().nullable().optional(),
  base: z.object({ sha: z.string(), ref: z.string(), repo: repoObject }),
  head: z.object({ sha: z.string(), ref: z.string().optional() }),
});

/** One entry of `GET /repos/{o}/{r}/pulls/{n}/files`. */
export const githubFileSchema = z.object({
  filename: z.string(),
  status: z.string(),
  previous_filename: z.string().optional(),
});

/** An issue as `GET /repos/{o}/{r}/issues/{n}` returns it (a PR carries `pull_request`). */
export const githubIssueSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().optional(),
  pull_request: z.unknown().optional(),
  repository_url: z.string().optional(),
});

/** A timeline event; only `cross-referenced` ones from issues count as linked issues. */
export const githubTimelineEventSchema = z.object({
  event: z.string().optional(),
  source: z
    .object({
      type: z.string().optional(),
      issue: z
        .object({
          number: z.number().int(),
          repository_url: z.string().optional(),
          pull_request: z.unknown().optional(),
        })
        .optional(),
    })
    .optional(),
});

/**
 * The injected PR source file (`--pr-json`): GitHub's pull request object, plus optionally its
 * file list, the issues it may reference (each with `repository: "owner/repo"` when not in the
 * PR's own repository) and its timeline. Absent `files` are derived from the local clone.
 */
export const injectedPrSchema = z.object({
  pull_request: githubPullSchema,
  files: z.array(githubFileSchema).optional(),
  issues: z.array(githubIssueSchema.extend({ repository: z.string().optional() })).optional(),
  timeline: z.array(githubTimelineEventSchema).optional(),
});

export type GithubPull = z.infer<typeof githubPullSchema>;
export type InjectedPr = z.infer<typeof injectedPrSchema>;
