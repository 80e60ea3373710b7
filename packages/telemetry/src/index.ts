/**
 * @packageDocumentation
 * OpenTelemetry for Interlock's processes (F59): `startTelemetry` installs the SDK and exports
 * traces and metrics over OTLP/HTTP; `telemetryOptionsOf` reads a project file's `[telemetry]`.
 * Interlock's core uses the OpenTelemetry API only, and is inert without this (or another SDK).
 */
export { startTelemetry, type Telemetry, type TelemetryOptions } from './start-telemetry.js';
export { telemetryOptionsOf } from './telemetry-config.js';
