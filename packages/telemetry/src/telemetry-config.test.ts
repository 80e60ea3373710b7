import { describe, expect, it } from 'vitest';
import { telemetryOptionsOf } from './telemetry-config.js';

describe('telemetryOptionsOf (F59)', () => {
  it("takes the file's endpoint and service name, and headers from the variables it names", () => {
    expect(
      telemetryOptionsOf(
        { endpoint: 'http://127.0.0.1:4318', headersEnv: { authorization: 'OTLP_TOKEN' }, metricsInterval: 5_000 },
        'interlock-web',
        { OTLP_TOKEN: 'Bearer s3cret' },
      ),
    ).toEqual({
      endpoint: 'http://127.0.0.1:4318',
      serviceName: 'interlock-web',
      headers: { authorization: 'Bearer s3cret' },
      metricsIntervalMs: 5_000,
    });
    expect(
      telemetryOptionsOf({ endpoint: 'http://collector:4318', serviceName: 'inbox' }, 'interlock-web', {}),
    ).toEqual({
      endpoint: 'http://collector:4318',
      serviceName: 'inbox',
    });
  });

  it('refuses a header whose variable is not set, naming it', () => {
    expect(() =>
      telemetryOptionsOf(
        { endpoint: 'http://127.0.0.1:4318', headersEnv: { authorization: 'OTLP_TOKEN' } },
        'worker',
        {},
      ),
    ).toThrow(/OTLP_TOKEN is not set/);
  });
});
