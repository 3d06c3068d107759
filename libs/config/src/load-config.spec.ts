import { AppError } from '@caravel/errors';
import { z } from 'zod';
import {
  distributedServiceSchema,
  envSchemaOf,
  loadConfig,
  renderEnvExample,
  serviceConfigOf,
} from './index.js';

describe('loadConfig', () => {
  const schema = distributedServiceSchema(3001);

  it('applies defaults and coerces values', () => {
    const config = loadConfig('dispatch', schema, {
      NATS_URL: 'nats://127.0.0.1:4222',
      DATABASE_URL: 'postgres://postgres@127.0.0.1/caravel',
      PORT: '4000',
    });
    expect(config.PORT).toBe(4000);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.LOG_LEVEL).toBe('info');
  });

  it('lists every invalid key at once', () => {
    let caught: unknown;
    try {
      loadConfig('dispatch', schema, { NATS_URL: 'http://x', PORT: 'ninety', LOG_LEVEL: 'loud' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    const error = caught as AppError;
    expect(error.code).toBe('CONFIG_INVALID');
    const problems = error.details['problems'] as string[];
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(
      ['DATABASE_URL', 'LOG_LEVEL', 'NATS_URL', 'PORT'].sort(),
    );
    expect(error.message).toContain('NATS_URL: must be a nats:// URL (got "http://x")');
    expect(error.message).toContain('DATABASE_URL: required, but unset');
  });

  it('accepts pglite URLs for the database', () => {
    const config = loadConfig('x', schema, {
      NATS_URL: 'nats://n:4222',
      DATABASE_URL: 'pglite:memory',
    });
    expect(config.DATABASE_URL).toBe('pglite:memory');
  });
});

describe('loadConfig with a typed shape', () => {
  const schema = distributedServiceSchema(3001)
    .extend({ LIMIT: z.coerce.number().int().positive().default(8) })
    .transform((env) => ({ service: serviceConfigOf(env), limits: { max: env.LIMIT } }));
  const env = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };

  it('maps the environment to the nested configuration at parse time', () => {
    expect(loadConfig('svc', schema, { ...env, LIMIT: '3', BUS_NAMESPACE: 'ns1' })).toEqual({
      service: {
        port: 3001,
        host: '0.0.0.0',
        natsUrl: 'nats://127.0.0.1:4222',
        databaseUrl: 'pglite:memory',
        databaseMigrate: true,
        busNamespace: 'ns1',
        logLevel: 'info',
        shutdownGraceMs: 20_000,
      },
      limits: { max: 3 },
    });
  });

  it('leaves the schema alone at start with DATABASE_MIGRATE=false', () => {
    expect(loadConfig('svc', schema, { ...env, DATABASE_MIGRATE: 'false' }).service).toMatchObject({
      databaseMigrate: false,
    });
    expect(() => loadConfig('svc', schema, { ...env, DATABASE_MIGRATE: 'no' })).toThrow(
      /DATABASE_MIGRATE/,
    );
  });

  it('still names the environment keys of every invalid value', () => {
    let caught: unknown;
    try {
      loadConfig('svc', schema, { ...env, LIMIT: '0', PORT: 'x' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'CONFIG_INVALID',
      details: { problems: [expect.stringMatching(/^PORT: /), expect.stringMatching(/^LIMIT: /)] },
    });
  });

  it('renders the keys before the transform into .env.example', () => {
    expect(Object.keys(envSchemaOf(schema).shape)).toContain('LIMIT');
    expect(renderEnvExample([{ title: 'svc', schema }])).toMatch(/^# LIMIT=8$/m);
  });
});

describe('renderEnvExample', () => {
  it('marks required keys, shows defaults and hides secrets', () => {
    const text = renderEnvExample([{ title: 'svc', schema: distributedServiceSchema(3001) }]);
    expect(text).toContain('# --- svc ---');
    expect(text).toMatch(/^NATS_URL=nats:\/\/127\.0\.0\.1:4222$/m);
    expect(text).toMatch(/^DATABASE_URL=$/m);
    expect(text).toMatch(/^# PORT=3001$/m);
  });

  it('falls back to the key name when a key is undocumented', () => {
    const text = renderEnvExample([{ title: 't', schema: z.object({ PLAIN: z.string() }) }]);
    expect(text).toContain('# PLAIN (required)');
  });
});
