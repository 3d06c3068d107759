-- AlterTable
ALTER TABLE "eval_proposals" ADD COLUMN     "base_version" INTEGER,
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'agent-config',
ADD COLUMN     "repository" TEXT,
ADD COLUMN     "style_prompt" TEXT,
ADD COLUMN     "style_summary" TEXT,
ADD COLUMN     "style_version" INTEGER;

-- AlterTable
ALTER TABLE "review_styles" ADD COLUMN     "edited_by" TEXT,
ADD COLUMN     "proposal_id" UUID;

-- State columns (docs/db.md, "State columns"): EVAL_PROPOSAL_KINDS, and REVIEW_STYLE_MODES with
-- `edited` (a person's edit the reviewer eval gate accepted).
ALTER TABLE "eval_proposals" ADD CONSTRAINT "eval_proposals_kind_check"
    CHECK ("kind" IN ('agent-config', 'review-style'));
ALTER TABLE "review_styles" DROP CONSTRAINT "review_styles_mode_check";
ALTER TABLE "review_styles" ADD CONSTRAINT "review_styles_mode_check"
    CHECK ("mode" IN ('bootstrap', 'continual', 'edited'));

-- A review-style proposal names its repository and carries its draft (bounded, as the API bounds it).
ALTER TABLE "eval_proposals" ADD CONSTRAINT "eval_proposals_review_style_check"
    CHECK ("kind" <> 'review-style' OR ("repository" IS NOT NULL AND "style_prompt" IS NOT NULL
        AND char_length("style_prompt") BETWEEN 1 AND 20000));
