import type { ProjectTelemetryConfig } from '@interlock/sdk-types';
import type { Telemetry } from '@interlock/telemetry';

/**
 * Starts OpenTelemetry when the project file has a `[telemetry]` table (F59). The SDK (a few
 * hundred modules) is imported only then: a command without it starts without loading it.
 */
export async function startProjectTelemetry(
  config: ProjectTelemetryConfig | undefined,
  serviceName: string,
): Promise<Telemetry | undefined> {
  if (config === undefined) return undefined;
  const { startTelemetry, telemetryOptionsOf } = await import('@interlock/telemetry');
  return startTelemetry(telemetryOptionsOf(config, serviceName));
}
