/**
 * @packageDocumentation
 * Interlock as the permission layer of the Claude Agent SDK (F56). Start with {@link interlockPermissions}.
 */
export {
  interlockPermissions,
  claudeCodeToolPolicies,
  InterlockPermissions,
  type InterlockPermissionsOptions,
} from './interlock-permissions.js';
