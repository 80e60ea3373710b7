import type { RiskLevel, ToolCategory } from '@interlock/sdk-types';

/** How an MCP server's tool is decided, as configured (every field optional: a floor). */
export interface McpToolPolicy {
  category?: ToolCategory;
  riskLevel?: RiskLevel;
  idempotent?: boolean;
  requireResultApproval?: boolean;
}

/** What an MCP server says about a tool (`ToolAnnotations`): hints, from a server Interlock does not trust. */
export interface McpAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** From least to most careful: a later category never asks less than an earlier one. */
const CATEGORY_ORDER: readonly ToolCategory[] = ['read', 'write', 'network', 'command', 'ask'];
const RISK_ORDER: readonly RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH'];

const stricter = <T>(order: readonly T[], a: T, b: T): T => (order.indexOf(a) >= order.indexOf(b) ? a : b);

/**
 * The category, risk and idempotence of an MCP tool (issue 17).
 *
 * With nothing configured, the annotations decide, read with MCP's defaults (a tool that
 * says nothing is not read-only, is destructive and open-world): `readOnlyHint` → read and
 * LOW; `openWorldHint` → network; `destructiveHint` → HIGH; `idempotentHint` → idempotent.
 *
 * What the configuration says is a floor. Annotations are hints from an untrusted server:
 * an explicit hint may make a tool stricter (`destructiveHint: true` raises a configured LOW
 * to HIGH, `idempotentHint: false` withdraws a configured idempotence) but never looser (a
 * `readOnlyHint` does not lower a configured `write`).
 */
export function mapMcpTool(
  annotations: McpAnnotations | undefined,
  configured: McpToolPolicy,
): Required<Omit<McpToolPolicy, 'requireResultApproval'>> & { requireResultApproval: boolean } {
  const hints = annotations ?? {};
  const readOnly = hints.readOnlyHint === true;
  // What the hints ask for on their own, with MCP's defaults for the ones not given.
  const hintedCategory: ToolCategory = readOnly
    ? hints.openWorldHint === true
      ? 'network'
      : 'read'
    : hints.openWorldHint === false
      ? 'write'
      : 'network';
  const hintedRisk: RiskLevel = readOnly ? 'LOW' : hints.destructiveHint === false ? 'MEDIUM' : 'HIGH';
  // Only explicit hints may tighten a configured value.
  const explicitCategory: ToolCategory =
    hints.readOnlyHint === false
      ? hints.openWorldHint === true
        ? 'network'
        : 'write'
      : hints.openWorldHint === true
        ? 'network'
        : 'read';
  const explicitRisk: RiskLevel =
    !readOnly && hints.destructiveHint === true ? 'HIGH' : hints.readOnlyHint === false ? 'MEDIUM' : 'LOW';
  return {
    category:
      configured.category === undefined
        ? hintedCategory
        : stricter(CATEGORY_ORDER, configured.category, explicitCategory),
    riskLevel:
      configured.riskLevel === undefined ? hintedRisk : stricter(RISK_ORDER, configured.riskLevel, explicitRisk),
    idempotent:
      configured.idempotent === undefined
        ? hints.idempotentHint === true
        : configured.idempotent && hints.idempotentHint !== false,
    requireResultApproval: configured.requireResultApproval === true,
  };
}
