import { describe, expect, it } from '@jest/globals';
import { ROUTES } from '../api/routes.js';
import { DocsController } from './docs.controller.js';

describe('GET /api/docs', () => {
  it('serves the OpenAPI document of every route, built once at the first request', () => {
    const controller = new DocsController();
    const first = controller.document();
    const paths = first['paths'] as Record<string, unknown>;
    for (const route of Object.values(ROUTES)) {
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      expect(Object.keys(paths)).toContain(path);
    }
    expect(controller.document()).toBe(first);
  });
});
