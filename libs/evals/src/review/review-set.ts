import { AppError } from '@caravel/errors';
import { z } from 'zod';

/** Case ids: a name fit for a folder and a table column. */
const CASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

const line = z.number().int().positive();

/**
 * A repository, commit or ref the set hands to git as an argument: never one git would read as
 * an option (`git fetch origin --upload-pack=<cmd>` runs <cmd> on this host).
 */
const gitArgument = z
  .string()
  .min(1)
  .refine((value) => !value.startsWith('-'), {
    message: "may not start with '-' (git would read it as an option)",
  });

/**
 * A defect a case's pull request is known to have: where it is (a file of the pull request and
 * a range of lines, 1-based; `RIGHT` lines are the head's, `LEFT` ones the base's removed lines;
 * no lines: the file as a whole) and, for people and an optional judge, what it is.
 */
export const expectedDefectSchema = z
  .strictObject({
    file: z.string().min(1),
    startLine: line.optional(),
    endLine: line.optional(),
    side: z.enum(['RIGHT', 'LEFT']).default('RIGHT'),
    description: z.string().min(1).optional(),
    severity: z.enum(['low', 'medium', 'high', 'critical']).optional(),
  })
  .refine((d) => d.endLine === undefined || d.startLine !== undefined, {
    message: 'endLine needs a startLine',
    path: ['endLine'],
  })
  .refine((d) => d.endLine === undefined || (d.startLine ?? 0) <= d.endLine, {
    message: 'endLine is before startLine',
    path: ['endLine'],
  });

/**
 * One labelled pull request: a repository (a path, relative to the set's file, or a URL git
 * clones), its base, and its head as a commit or ref, or as a patch (a file, relative to the
 * set's) applied on the base; what the pull request says of itself; the defects it holds (none:
 * a clean pull request, where every finding is a false positive).
 */
export const reviewCaseSchema = z
  .strictObject({
    id: z
      .string()
      .regex(CASE_ID, 'letters, digits, . _ - (at most 80)')
      .refine((id) => !id.includes('..') && !id.endsWith('.lock'), {
        message: "no '..' and no '.lock' at the end (the id names git branches)",
      }),
    repository: gitArgument.optional(),
    base: gitArgument,
    head: gitArgument.optional(),
    patch: z.string().min(1).optional(),
    title: z.string().optional(),
    body: z.string().optional(),
    defects: z.array(expectedDefectSchema),
  })
  .refine((c) => (c.head === undefined) !== (c.patch === undefined), {
    message: 'a case has a head or a patch (one of them)',
    path: ['head'],
  });

/** A labelled set: `review-set.json`. `repository` is each case's unless it names its own. */
export const reviewSetSchema = z
  .strictObject({
    name: z.string().regex(CASE_ID, 'letters, digits, . _ - (at most 80)').optional(),
    repository: gitArgument.optional(),
    cases: z.array(reviewCaseSchema).min(1, 'a set needs at least one case'),
  })
  .superRefine((set, context) => {
    const seen = new Set<string>();
    set.cases.forEach((c, i) => {
      if (seen.has(c.id))
        context.addIssue({ code: 'custom', path: ['cases', i, 'id'], message: `${c.id} twice` });
      seen.add(c.id);
      if (!c.repository && !set.repository)
        context.addIssue({
          code: 'custom',
          path: ['cases', i, 'repository'],
          message: 'no repository (give it here or at the top of the set)',
        });
    });
  });

export type ExpectedDefect = z.output<typeof expectedDefectSchema>;
export type ReviewSetFile = z.output<typeof reviewSetSchema>;

/** A case with its repository settled (the set's when it names none). */
export type ReviewCase = Omit<z.output<typeof reviewCaseSchema>, 'repository'> & {
  repository: string;
};

/** A labelled set, its cases' repositories settled. */
export interface ReviewSet {
  name: string;
  cases: ReviewCase[];
}

/**
 * A labelled set from its parsed JSON. A malformed one is a `BAD_REQUEST` naming the first bad
 * field (`cases.1.defects.0.endLine: endLine is before startLine`), in one line.
 */
export function parseReviewSet(raw: unknown, where: string, fallbackName: string): ReviewSet {
  const parsed = reviewSetSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.length ? issue.path.join('.') : '(top level)';
    throw new AppError('BAD_REQUEST', `${where}: ${path}: ${issue?.message ?? 'invalid'}`);
  }
  const set = parsed.data;
  return {
    name: set.name ?? fallbackName,
    cases: set.cases.map((c) => ({ ...c, repository: c.repository ?? set.repository ?? '' })),
  };
}
