import { z } from 'zod';
import { parseOrThrow } from './define-message.js';

interface RequestInput<TReq extends z.ZodObject, TRes extends z.ZodType> {
  /** The serving service's subject root, e.g. `sandbox`. */
  service: string;
  /** The operation, e.g. `ping` or `exec`. */
  op: string;
  request: TReq;
  response: TRes;
  description: string;
}

/** A request/reply pair on `<service>.<threadId>.<op>`. Replies are not durable. */
export interface RequestDefinition<
  TReq extends z.ZodObject = z.ZodObject,
  TRes extends z.ZodType = z.ZodType,
> {
  readonly service: string;
  readonly op: string;
  readonly description: string;
  /** The subject pattern a server handles (`@MessagePattern(definition.pattern)`). */
  readonly pattern: string;
  subjectFor(threadId: string): string;
  parseRequest(raw: unknown): z.output<TReq>;
  parseResponse(raw: unknown): z.output<TRes>;
}

/** A request as its server receives it: parsed by its definition (defaults applied). */
export type RequestOf<D> = D extends RequestDefinition<infer Q, z.ZodType> ? z.output<Q> : never;

const threadIdSchema = z.uuid();

/** Defines a thread-scoped request/reply operation once; subjects derive from it. */
export function defineRequest<TReq extends z.ZodObject, TRes extends z.ZodType>(
  input: RequestInput<TReq, TRes>,
): RequestDefinition<TReq, TRes> {
  const name = `${input.service}.${input.op}`;
  return {
    service: input.service,
    op: input.op,
    description: input.description,
    pattern: `${input.service}.*.${input.op}`,
    subjectFor(threadId) {
      return `${input.service}.${threadIdSchema.parse(threadId)}.${input.op}`;
    },
    parseRequest(raw) {
      return parseOrThrow(input.request, raw, `${name} request`);
    },
    parseResponse(raw) {
      return parseOrThrow(input.response, raw, `${name} response`);
    },
  };
}
