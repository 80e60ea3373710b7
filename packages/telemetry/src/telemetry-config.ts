import type { ProjectTelemetryConfig } from '@interlock/sdk-types';
import type { TelemetryOptions } from './start-telemetry.js';

/**
 * The options of `[telemetry]` in a project file: its endpoint, its service name (or
 * `serviceName`, the process's own), its headers read from the environment variables the
 * file names.
 *
 * @throws Error naming the variable when a header's variable is not set.
 */
export function telemetryOptionsOf(
  config: ProjectTelemetryConfig,
  serviceName: string,
  environment: NodeJS.ProcessEnv = process.env,
): TelemetryOptions {
  const headers: Record<string, string> = {};
  for (const [header, variable] of Object.entries(config.headersEnv ?? {})) {
    const value = environment[variable];
    if (value === undefined || value === '')
      throw new Error(`[telemetry] headersEnv.${header}: the environment variable ${variable} is not set`);
    headers[header] = value;
  }
  return {
    endpoint: config.endpoint,
    serviceName: config.serviceName ?? serviceName,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(config.metricsInterval === undefined ? {} : { metricsIntervalMs: config.metricsInterval }),
  };
}
