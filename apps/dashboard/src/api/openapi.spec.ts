import { describe, expect, it } from '@jest/globals';
import { openApiDocument } from './openapi.js';
import { ROUTES } from './routes.js';

type Operation = {
  parameters: { name: string; in: string; required: boolean }[];
  requestBody?: { content: { 'application/json': { schema: { properties: object } } } };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  'x-access': string;
};

describe('the OpenAPI document', () => {
  const document = openApiDocument(ROUTES) as {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
  };
  const operation = (path: string, method: string): Operation => {
    const found = document.paths[path]?.[method];
    if (!found) throw new Error(`no ${method} ${path}`);
    return found;
  };

  it('documents every route of the catalogue, once, with its access', () => {
    const documented = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    expect(documented).toHaveLength(Object.keys(ROUTES).length);
    expect(document.openapi).toBe('3.1.0');
    expect(operation('/api/repositories/{owner}/{name}', 'put')['x-access']).toBe('admin');
  });

  it('derives parameters and bodies from the schemas the controllers parse with', () => {
    const threads = operation('/api/threads', 'get');
    expect(threads.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      'query:limit:false',
      'query:source:false',
      'query:repo:false',
      'query:person:false',
      'query:status:false',
      'query:since:false',
      'query:until:false',
    ]);
    expect(operation('/api/threads/{id}', 'get').parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    ]);
    const body = operation('/api/profiles/{identity}', 'put').requestBody;
    expect(Object.keys(body?.content['application/json'].schema.properties ?? {})).toContain(
      'defaultRepository',
    );
    expect(
      Object.keys(operation('/api/threads/{id}/stream', 'get').responses['200']?.content ?? {}),
    ).toEqual(['text/event-stream']);
  });
});
