import { Controller, Get } from '@nestjs/common';
import { openApiDocument } from '../api/openapi.js';
import { ROUTES } from '../api/routes.js';

/** Built at the first request, not at start: nothing else needs it. */
let built: Record<string, unknown> | undefined;

/** `GET /api/docs`: the API's OpenAPI document, generated from the same schemas the routes parse with. */
@Controller('api/docs')
export class DocsController {
  @Get()
  document(): Record<string, unknown> {
    built ??= openApiDocument(ROUTES);
    return built;
  }
}
