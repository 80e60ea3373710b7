import type { AnalysisContext } from './analysis-context.js';

/** Variables that change which program runs, what it loads, or what it executes on its own. */
const DANGEROUS_NAMES = new Set([
  'PATH',
  'BASH_ENV',
  'ENV',
  'IFS',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'CDPATH',
  'GLOBIGNORE',
  'HOME',
  'XDG_CONFIG_HOME',
  'ZDOTDIR',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'PAGER',
  'MANPAGER',
  'EDITOR',
  'VISUAL',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'RIPGREP_CONFIG_PATH',
  'GREP_OPTIONS',
  'TAR_OPTIONS',
  'AWKPATH',
  'AWKLIBPATH',
  'GCONV_PATH',
  'SHELL',
  'TERMINFO',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'CURL_HOME',
  'WGETRC',
  'SSH_AUTH_SOCK',
]);

/** Prefixes of dangerous variable families (loader, git and npm configuration, exported functions). */
const DANGEROUS_PREFIXES = ['LD_', 'DYLD_', 'GIT_', 'BASH_FUNC_', 'NPM_CONFIG_', 'npm_config_', 'MALLOC_'];

/** True when assigning `name` can make a later program run something else. */
function isDangerousVariable(name: string): boolean {
  return DANGEROUS_NAMES.has(name) || DANGEROUS_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Reports assignments to dangerous variables (`PATH=/tmp ls`, `LD_PRELOAD=x ls`). */
export function checkAssignments(names: readonly string[], context: AnalysisContext): void {
  for (const name of names) {
    if (isDangerousVariable(name)) {
      context.findings.add('ask', 'shell:dangerous-assignment', `assigning ${name} can change what the command runs`);
    }
  }
}
