/**
 * The result's file name in a reviewer run's output folder. Its own module: `caravel eval
 * compare` looks for it before it knows whether it has reviewer runs, and the service that
 * writes it loads the model providers and the database (about 2 s of CPU).
 */
export const REVIEW_EVAL_FILE = 'review-eval.json';
