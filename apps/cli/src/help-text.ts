const EXIT_CODES = `Exit codes:
  0    the thread completed (validate: the workflow is valid)
  1    the thread failed, or the workflow file is invalid or unreadable
  2    usage error: unknown command or option, bad --input, undeclared variable
  3    the thread is left waiting for an answer nobody gave (e.g. stdin ran out)
  130  interrupted with Ctrl+C (the thread is left waiting) or cancelled`;

const IN_MEMORY = `Runs are kept in memory for now (the SQLite store is not built yet): a thread
left waiting ends with the process. LLM nodes are answered by the offline demo
model (real model providers are not wired into the CLI yet).`;

const ANSWERING = `Answering questions:
  In a terminal, questions are interactive prompts (Ctrl+C leaves the thread waiting).
  Otherwise one line of standard input answers one question, in order:
    printf 'no\\nyes\\n' | interlock demo
  When standard input runs out, the thread is left waiting (exit code 3);
  nothing is ever approved on your behalf.`;

/** `interlock --help`. */
export const TOP_LEVEL_HELP = `interlock: run workflows that ask people before they go on.

Usage:
  interlock run <workflow.toml|json> [--input key=value ...] [--json]
  interlock demo [--input key=value ...] [--json]
  interlock validate <workflow.toml|json>
  interlock <command> --help
  interlock --version

Commands:
  run       run a workflow file and answer its questions in this terminal
  demo      run the plan-approval example with a scripted demo model
  validate  check a workflow file and list every error with its path

${ANSWERING}

${IN_MEMORY}

${EXIT_CODES}
`;

/** `interlock run --help`. */
export const RUN_HELP = `Usage: interlock run <workflow.toml|json> [options]

Runs a workflow file in this process and prints its events as they happen.

Options:
  -i, --input key=value   set a declared thread variable to a string (repeatable)
  -i, --input key:=json   set it to a JSON value, e.g. --input count:=3
      --json              print each event as one JSON line, then an OUTCOME line;
                          questions go to standard error
  -h, --help              show this help

${ANSWERING}

${IN_MEMORY}

${EXIT_CODES}

Example:
  printf 'Sichuan\\n' | interlock run examples/workflows/ask-user.toml
`;

/** `interlock demo --help`. */
export const DEMO_HELP = `Usage: interlock demo [options]

Runs examples/workflows/plan-approval.toml: a scripted demo model drafts a plan,
you approve it (or say no and get a revised plan), and the model reports.

Options:
  -i, --input key=value   e.g. --input task="Add a --json flag to the report command"
      --json              print each event as one JSON line, then an OUTCOME line
  -h, --help              show this help

${ANSWERING}

${IN_MEMORY}

${EXIT_CODES}
`;

/** `interlock validate --help`. */
export const VALIDATE_HELP = `Usage: interlock validate <workflow.toml|json>

Checks a workflow file completely (schema, graph, variables, expressions, and the
files its SUBGRAPH nodes name). Prints "valid", or every error with its path
(e.g. nodes[3].config.variables[0].scope).

Options:
  -h, --help   show this help

Exit codes:
  0    the workflow is valid
  1    the workflow is invalid or cannot be read
  2    usage error
`;
