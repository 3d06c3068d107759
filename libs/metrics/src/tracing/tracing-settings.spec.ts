import { describe, expect, it } from '@jest/globals';
import { tracingSettings } from './tracing-settings.js';

describe('tracingSettings', () => {
  it('is off without a collector, whatever else is set', () => {
    expect(tracingSettings('caravel-dispatch', {})).toBeNull();
    expect(
      tracingSettings('caravel-dispatch', { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_EXPORTER: 'otlp' }),
    ).toBeNull();
  });

  it('sends to the traces endpoint, or the base endpoint + /v1/traces', () => {
    const base = tracingSettings('caravel-dispatch', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
    });
    expect(base).toMatchObject({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'caravel-dispatch',
      scheduleDelayMs: 5_000,
    });
    const signal = tracingSettings('caravel-ingress', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
      OTEL_SERVICE_NAME: 'edge',
      OTEL_BSP_SCHEDULE_DELAY: '250',
    });
    expect(signal).toMatchObject({
      url: 'http://traces:4318/custom',
      serviceName: 'edge',
      scheduleDelayMs: 250,
    });
  });

  it('is off when the SDK is disabled or the exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings('x', { ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeNull();
    expect(tracingSettings('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(
      tracingSettings('x', { ...endpoint, OTEL_TRACES_EXPORTER: 'console,otlp' }),
    ).not.toBeNull();
  });

  it('reads the headers of both variables, decoded, the traces ones last', () => {
    const settings = tracingSettings('x', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team = core,broken',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
    });
    expect(settings?.headers).toEqual({ authorization: 'Bearer abc', 'x-team': 'traces' });
  });
});
