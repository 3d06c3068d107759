import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { nestPathOf } from '../api/api-route.js';
import type { RouteSpec } from '../api/route-spec.js';

type Handler = (...args: never[]) => unknown;

const trimmed = (path: unknown): string =>
  typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : '';

/**
 * How Nest serves `handler` of `controller`: `get api/evals/runs/:id`, with the status when the
 * handler names one (`post api/evals/proposals 201`). The controller's prefix is part of the path.
 */
export function servedAs<C extends object>(
  controller: abstract new (...args: never[]) => C,
  handler: keyof C & string,
): string {
  const method = (controller.prototype as Record<string, Handler>)[handler];
  if (!method) throw new Error(`${controller.name} has no handler ${handler}`);
  const path = [
    Reflect.getMetadata(PATH_METADATA, controller),
    Reflect.getMetadata(PATH_METADATA, method),
  ]
    .map(trimmed)
    .filter((part) => part !== '')
    .join('/');
  const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, method) as number] ?? 'unrouted';
  const status = Reflect.getMetadata(HTTP_CODE_METADATA, method) as number | undefined;
  return `${verb.toLowerCase()} ${path}${status === undefined ? '' : ` ${status}`}`;
}

/** How a {@link RouteSpec} says it is served, in the words of {@link servedAs}. */
export function declaredAs(route: RouteSpec): string {
  return `${route.method} ${nestPathOf(route)}${route.status === undefined ? '' : ` ${route.status}`}`;
}
