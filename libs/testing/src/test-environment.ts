import { z } from 'zod';

/** Where medium and end-to-end tests find the real services. Read once, here only. */
const testEnvironmentSchema = z.object({
  CI: z
    .string()
    .optional()
    .transform((v) => v === 'true' || v === '1'),
  TEST_NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  TEST_DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
});

export type TestEnvironment = z.infer<typeof testEnvironmentSchema>;

export const testEnvironment: TestEnvironment = testEnvironmentSchema.parse(process.env);
