import { z } from 'zod';
import { errorResponse } from './schemas.js';
import type { RouteSpec } from './routes.js';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

function parameters(route: RouteSpec): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [where, object] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!object) continue;
    const schema = jsonSchema(object, 'input') as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      list.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  return list;
}

function success(route: RouteSpec): JsonSchema {
  const status = String(route.status ?? 200);
  if (route.produces === 'redirect') return { [status]: { description: 'a redirect' } };
  if (route.produces === 'text/event-stream') {
    return {
      [status]: {
        description: 'Server-Sent Events; each `data` is a run event as JSON',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    };
  }
  if (!route.response) return { [status]: { description: 'no content' } };
  return {
    [status]: {
      description: 'success',
      content: { 'application/json': { schema: jsonSchema(route.response, 'output') } },
    },
  };
}

const ERRORS = {
  description: 'a coded error: { error: { code, message } }',
  content: { 'application/json': { schema: jsonSchema(errorResponse, 'output') } },
};

const SECURITY: Record<RouteSpec['access'], JsonSchema[]> = {
  public: [],
  read: [{ session: [] }, { token: [] }],
  action: [{ session: [] }, { token: [] }],
  admin: [{ session: [] }, { token: [] }],
};

/** The OpenAPI 3.1 document of the dashboard API, generated from the route catalogue. */
export function openApiDocument(routes: Record<string, RouteSpec>): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [operationId, route] of Object.entries(routes)) {
    const operation: JsonSchema = {
      operationId,
      summary: route.summary,
      'x-access': route.access,
      security: SECURITY[route.access],
      parameters: parameters(route),
      responses: { ...success(route), '4XX': ERRORS, '5XX': ERRORS },
    };
    if (route.body) {
      operation['requestBody'] = {
        required: true,
        content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
      };
    }
    paths[route.path] = { ...paths[route.path], [route.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Caravel dashboard API', version: '1' },
    paths,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'caravel_session' },
        token: { type: 'http', scheme: 'bearer', description: 'DASHBOARD_TOKEN' },
      },
    },
  };
}
