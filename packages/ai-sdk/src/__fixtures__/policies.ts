/** How Interlock sees the tests' three tools, as the README declares them: no JSON Schema. */
export const POLICIES = {
  read_file: { category: 'read' as const, riskLevel: 'LOW' as const },
  write_file: { category: 'write' as const, riskLevel: 'MEDIUM' as const, pathArgument: 'path' },
  bash: { category: 'command' as const, riskLevel: 'HIGH' as const, commandArgument: 'command' },
};
