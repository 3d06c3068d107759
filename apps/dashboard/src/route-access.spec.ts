import { describe, expect, it } from '@jest/globals';
import { RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { nestPathOf } from './api/api-route.js';
import { ROUTES, type RouteAccess } from './api/routes.js';
import { ActionGuard, AdminGuard, ReadGuard } from './auth/guards.js';
import { dashboardConfigFrom } from './dashboard.config.js';
import { DashboardModule } from './dashboard.module.js';

type Handler = (...args: never[]) => unknown;

const trimmed = (path: unknown): string =>
  typeof path === 'string' ? path.replace(/^\/+|\/+$/g, '') : '';

/** The access a guard list grants: the strictest of the dashboard's guards it holds. */
function accessOf(guards: readonly unknown[]): RouteAccess {
  if (guards.includes(AdminGuard)) return 'admin';
  if (guards.includes(ActionGuard)) return 'action';
  return guards.includes(ReadGuard) ? 'read' : 'public';
}

/** Every HTTP route the dashboard's module serves (`get api/threads/:id`) and its access. */
function servedRoutes(): Map<string, RouteAccess> {
  const served = new Map<string, RouteAccess>();
  const controllers = DashboardModule.register(dashboardConfigFrom({})).controllers ?? [];
  for (const controller of controllers) {
    const prefix = trimmed(Reflect.getMetadata(PATH_METADATA, controller));
    const classGuards = (Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[];
    const prototype = controller.prototype as Record<string, Handler>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name === 'constructor') continue;
      const handler = prototype[name];
      const path = typeof handler === 'function' && Reflect.getMetadata(PATH_METADATA, handler);
      if (path === undefined || path === false) continue; // a bus handler or a helper: no route
      const verb = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number] ?? '?';
      const whole = [prefix, trimmed(path)].filter((part) => part !== '').join('/');
      const guards = (Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[];
      served.set(`${verb.toLowerCase()} ${whole}`, accessOf([...classGuards, ...guards]));
    }
  }
  return served;
}

/**
 * The routes anyone may call, each on purpose: nothing in them reads a thread, a setting or a
 * person's data.
 */
const PUBLIC_ON_PURPOSE: Record<string, string> = {
  'get api/auth': 'whether sign-in is on and whether this browser is signed in',
  'get api/auth/refusal': 'a refused sign-in’s words, only from a seal this dashboard made',
  'get auth/github': 'starts the sign-in',
  'get auth/github/callback': 'ends the sign-in (the state must match this browser’s nonce)',
  'get api/docs': 'the OpenAPI document, generated from the route declarations',
  'get ': 'the web app’s page',
  'get app/:file': 'the web app’s scripts and stylesheets',
};

describe('every dashboard route decides who may call it', () => {
  const served = servedRoutes();

  it('serves each declared route with the guard of its declared access', () => {
    const mismatched = Object.entries(ROUTES).flatMap(([name, route]) => {
      const key = `${route.method} ${nestPathOf(route)}`;
      const access = served.get(key);
      return access === route.access
        ? []
        : [`${name} (${key}): declared ${route.access}, served ${access ?? 'nowhere'}`];
    });
    expect(mismatched).toEqual([]);
  });

  it('serves no route without a guard unless it is public on purpose', () => {
    const open = [...served]
      .filter(([key, access]) => access === 'public' && !(key in PUBLIC_ON_PURPOSE))
      .map(([key]) => key);
    expect(open).toEqual([]);
  });
});
