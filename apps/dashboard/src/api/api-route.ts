import { applyDecorators, Delete, Get, HttpCode, Post, Put, UseGuards } from '@nestjs/common';
import { ActionGuard, AdminGuard, ReadGuard } from '../auth/guards.js';
import type { RouteSpec } from './route-spec.js';

const METHODS = { get: Get, post: Post, put: Put, delete: Delete } as const;
const GUARDS = { read: ReadGuard, action: ActionGuard, admin: AdminGuard } as const;

/** `/api/budgets/{scope}` (OpenAPI) as Nest's `api/budgets/:scope`. */
export function nestPathOf(spec: Pick<RouteSpec, 'path'>): string {
  return spec.path.replace(/^\//, '').replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Serves a handler as its {@link RouteSpec} declares it: the method and whole path (the
 * controller adds no prefix), the guard of its access and its success status. What /api/docs
 * documents is then what the route does, stated once.
 */
export function ApiRoute(spec: RouteSpec): MethodDecorator {
  return applyDecorators(
    METHODS[spec.method](nestPathOf(spec)),
    ...(spec.access === 'public' ? [] : [UseGuards(GUARDS[spec.access])]),
    ...(spec.status === undefined ? [] : [HttpCode(spec.status)]),
  );
}
