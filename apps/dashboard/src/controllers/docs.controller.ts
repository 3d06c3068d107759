import { Controller, Get } from '@nestjs/common';
import { openApiDocument } from '../api/openapi.js';
import { ROUTES } from '../api/routes.js';

const DOCUMENT = openApiDocument(ROUTES);

/** `GET /api/docs`: the API's OpenAPI document, generated from the same schemas the routes parse with. */
@Controller('api/docs')
export class DocsController {
  @Get()
  document(): Record<string, unknown> {
    return DOCUMENT;
  }
}
