import type { ProjectConfig } from '@interlock/sdk-types';
import type { ConfigIssue } from './config-issue.js';

/** Query parameters that carry a credential (`?api_key=…`, `&token=…`). */
const SECRET_NAME =
  /^(?:access[-_]?token|token|api[-_]?key|key|secret|client[-_]?secret|password|passwd|pwd|auth|authorization|sig|signature|session)$/i;
/** Options of a server's command line that carry a credential (`--token=…`, `--api-key …`). */
const SECRET_OPTION =
  /^--?(?:access[-_]?token|token|api[-_]?key|secret|client[-_]?secret|password|passwd|auth(?:orization)?)(?:=|$)/i;

/**
 * The secrets written into a project file (issue 24): a URL with `user:password@` or a
 * credential in its query, a server command line with `--token=…`. Secrets belong in the
 * environment — the file names the variable (`headersEnv`, `apiKeyEnv`, `env`). The problems
 * name the key and never repeat the value.
 */
export function secretsInFile(config: ProjectConfig): ConfigIssue[] {
  const problems: ConfigIssue[] = [];
  for (const [name, model] of Object.entries(config.models ?? {}))
    if (model.baseUrl !== undefined)
      problems.push(...urlProblems(model.baseUrl, `models.${name}.baseUrl`, 'apiKeyEnv'));
  for (const [name, server] of Object.entries(config.mcp?.servers ?? {})) {
    const key = `mcp.servers.${name}`;
    if (server.url !== undefined) problems.push(...urlProblems(server.url, `${key}.url`, 'headersEnv'));
    (server.args ?? []).forEach((argument, index) => {
      if (SECRET_OPTION.test(argument))
        problems.push({
          path: `${key}.args[${index}]`,
          message: `${argument.split('=')[0] ?? ''} passes a credential on the command line: give it through \`env\` (the variable's name), not in the file`,
        });
    });
  }
  const oidc = config.auth?.oidc;
  if (oidc !== undefined) {
    problems.push(...urlProblems(oidc.issuer, 'auth.oidc.issuer', 'clientSecretEnv'));
    if (oidc.redirectUrl !== undefined)
      problems.push(...urlProblems(oidc.redirectUrl, 'auth.oidc.redirectUrl', 'clientSecretEnv'));
  }
  return problems;
}

function urlProblems(text: string, path: string, instead: string): ConfigIssue[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const problems: ConfigIssue[] = [];
  if (url.username !== '' || url.password !== '')
    problems.push({
      path,
      message: `the URL holds credentials (user:password@): remove them and name the variable that holds them with \`${instead}\``,
    });
  const secret = [...url.searchParams.keys()].find((name) => SECRET_NAME.test(name));
  if (secret !== undefined)
    problems.push({
      path,
      message: `the URL's query holds a credential (${secret}=…): remove it and name the variable that holds it with \`${instead}\``,
    });
  return problems;
}

/** `scheme://user:password@host` → `scheme://***@host` in any text (an error message, a label). */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"<>]+@/gi, '$1***@');
}
