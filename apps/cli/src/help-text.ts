import { STORE_HELP } from './thread-commands-help.js';

const EXIT_CODES = `Exit codes:
  0    the thread completed (validate: the workflow is valid; explain: any decision)
  1    the thread failed, the workflow file is invalid or unreadable, the store
       cannot be opened, or (respond) the answer was refused
  2    usage error: unknown command or option, bad --input, --mode, --model,
       --store or JSON
  3    the thread is left waiting for an answer (e.g. stdin ran out, --detach)
  4    respond: the interaction was already answered; nothing changed
  5    respond: the interaction expired (its deadline passed); nothing ran
  6    respond: the store failed while the answer was being committed: it may
       or may not be stored (interlock pending shows whether it still waits)
  130  interrupted with Ctrl+C (at a tool approval that call is rejected; the
       thread is left waiting) or cancelled`;

const KEPT = `Threads are kept in the store (default: the SQLite file .interlock/interlock.db
in the current directory), so a thread left waiting, by Ctrl+C or when
standard input runs out, survives the process: list what waits with
interlock pending, answer it from any terminal with interlock respond, or
continue it with interlock resume.`;

const ANSWERING = `Answering questions:
  In a terminal, questions are interactive prompts. When a model proposes several
  tool calls at once, you see them all first and answer them one by one, or
  approve or reject them all. Ctrl+C at a tool approval rejects that call and
  stops the run; at another question it leaves the thread waiting. A question
  with a deadline counts down the time left; when it runs out, the call is
  refused (a question fails with reason timeout). While a terminal asks, an
  answer given with interlock respond elsewhere is taken here.
  Otherwise one line of standard input answers one question, in order:
    printf 'no\\nyes\\n' | interlock demo
  A tool approval takes one line per call that waits:
    y | yes | approve          approve
    n | no | reject [: reason] reject, e.g. "n: not today"
    edit {json}                approve with these arguments instead
    i: instruction             approve, and tell the model the instruction
    remember                   approve and remember for this session (where offered)
  A call that started before the process stopped, its outcome unknown (stage
  recovery), takes only: done (it ran: go on), retry (run it again) or
  failed[: reason]; approve is refused for it.
  A line that is not an answer is reported and the next one is read. When
  standard input runs out, the thread is left waiting (exit code 3); nothing is
  ever approved on your behalf.`;

const MODES = `Modes (--mode), in the approval pipeline after the deny and shell rules:
  default    reads run; writes, commands and network calls ask
  autoEdit   writes run too
  yolo       everything runs, but deny rules and banned shell commands still
             refuse, and risky shell commands and "ask" tools still ask`;

/** `interlock --help`. */
export const TOP_LEVEL_HELP = `interlock: run workflows that ask people before they go on.

Usage:
  interlock run <workflow.toml|json> [--detach | --channel NAME] [--store SPEC] [options]
  interlock demo [plan-approval|coding-agent] [options]
  interlock threads [--status STATUS] [--json]
  interlock pending [--json]
  interlock respond <interactionId> approve|reject|edit '<json>'|answer '<text>'
  interlock respond <interactionId> --resolution done|retry|failed
  interlock resume <threadId>
  interlock audit [--verify] [--json] [--file FILE]
  interlock explain <tool> '<json args>' [--json] [--mode MODE] [--workspace DIR]
  interlock validate <workflow.toml|json> [--tool NAME]
  interlock config check [interlock.toml]
  interlock worker <workflow.toml|json>… [--store SPEC] [--concurrency N]
  interlock mcp list [--json]
  interlock mcp serve [--http PORT] [--store SPEC]
  interlock receipts keys [--store SPEC]
  interlock receipts rotate [--store SPEC]
  interlock receipts retire KID [--store SPEC]
  interlock receipts generate
  interlock <command> --help
  interlock --version

Commands:
  run       run a workflow file and answer its questions in this terminal
            (--detach: start it, print its id, exit when it waits)
  demo      run an example with the scripted demo model
  threads   list the threads of the store
  pending   list what waits for an answer, with each interaction id
  respond   answer a waiting interaction from any terminal; the thread goes on
            here, or in the terminal that is asking it
  resume    continue a waiting or interrupted thread in this terminal
  audit     print the audit trail of tool-call decisions (--verify its hash chain)
  explain   say whether a tool call would run, ask or be refused, and why
  validate  check a workflow file and list every error with its path
  config    check the project file (interlock.toml): every error with its key,
            and warnings about risky entries
  worker    take forward the threads of these workflows after answers given
            anywhere (the web inbox, interlock respond), and at their deadlines
  mcp       list the project file's MCP servers and their tools (list), or be
            the MCP server agents ask for permission (serve)
  receipts  the keys approval receipts are signed with: print the JWKS services
            check them against (keys), rotate or retire keys, or generate one

${ANSWERING}

Project file: every command reads interlock.toml (or interlock.json) in the current
directory — store, models, tools, workspace and approval rules; see docs/configuration.md.
--config FILE reads another, --no-config none. Flags given on the command line win over
the file, but never loosen its denies.

${KEPT}

${STORE_HELP}

${EXIT_CODES}
`;

/** `interlock run --help`. */
export const RUN_HELP = `Usage: interlock run <workflow.toml|json> [options]

Runs a workflow file in this process with the built-in tools (read_file, list_dir,
write_file, edit_file, bash, http_fetch, ask_user) and prints its events as they happen.
The thread is kept in the store, on the "cli" channel.

With --detach, the thread runs on the "detached" channel, which nobody answers in
this process: the command prints the thread's id and exits (3) as soon as it
waits for a person, or 0 if it completed without asking. Answer it with
interlock pending and interlock respond, or continue it with interlock resume.
--channel NAME does the same on the channel NAME (e.g. web, for the web inbox);
--channel cli, the default, asks in this terminal.

Options:
      --detach            start the thread, print its id, exit when it waits
      --channel NAME      the thread's channel (default cli: ask here; any
                          other name: as --detach, on that channel)
      --store SPEC        where the thread is kept (see Stores below; default
                          sqlite:.interlock/interlock.db)
      --mode MODE         default, autoEdit or yolo (default: default)
      --model MODEL       scripted (the offline demo model), openai:<model>
                          (e.g. openai:gpt-4o-mini) or anthropic:<model> (e.g.
                          anthropic:claude-sonnet-4-5). Default: the project
                          file's [models.default], else scripted
      --base-url URL      the server of the model: an OpenAI-compatible one for
                          openai:<model> (default https://api.openai.com/v1;
                          e.g. Ollama: http://localhost:11434/v1), a proxy of
                          Anthropic's for anthropic:<model>. The key is read
                          from OPENAI_API_KEY / ANTHROPIC_API_KEY (or the
                          file's apiKeyEnv) and never printed.
      --workspace DIR     the directory the file and shell tools are confined to
                          (default: the current directory)
  -i, --input key=value   set a declared thread variable to a string (repeatable)
  -i, --input key:=json   set it to a JSON value, e.g. --input count:=3
      --json              print each event as one JSON line, then an OUTCOME line;
                          questions go to standard error. With --detach: one line,
                          {"threadId","status","pendingInteractionIds"}
  -h, --help              show this help

${MODES}

${ANSWERING}

${KEPT}

${STORE_HELP}

${EXIT_CODES}

Examples:
  printf 'Sichuan\\n' | interlock run examples/workflows/ask-user.toml
  interlock run examples/workflows/coding-agent.toml --workspace ./sandbox --mode autoEdit
  interlock run examples/workflows/plan-approval.toml --detach --json
`;

/** `interlock demo --help`. */
export const DEMO_HELP = `Usage: interlock demo [plan-approval|coding-agent] [options]

plan-approval (the default) runs examples/workflows/plan-approval.toml: a scripted
demo model drafts a plan, you approve it (or say no and get a revised plan), and
the model reports.

coding-agent runs examples/workflows/coding-agent.toml in a new temporary
workspace with a README.md (its path is printed). The model proposes four tool
calls at once: read README.md (runs: a read), write NOTES.md (asks), ls -la
(asks: a command), rm -rf / (refused: a banned command). Then it sums up what ran
and what was refused.

Options:
      --mode MODE         default, autoEdit or yolo (default: default)
      --store SPEC        where the thread is kept (default
                          sqlite:.interlock/interlock.db; see interlock --help)
  -i, --input key=value   e.g. --input task="Add a --json flag to the report command"
      --json              print each event as one JSON line, then an OUTCOME line
  -h, --help              show this help

Example:
  printf 'y\\nn: not today\\n' | interlock demo coding-agent

${ANSWERING}

${KEPT}

${EXIT_CODES}
`;

/** `interlock explain --help`. */
export const EXPLAIN_HELP = `Usage: interlock explain <tool> '<json args>' [options]

Dry-runs the approval pipeline for one call of a built-in tool and prints the
decision (allow, ask or deny), the rule that decided, its reason, and every rule
looked at on the way. Nothing runs.

Options:
      --json            print exactly {"outcome","rule","reason","path"} as one line
      --mode MODE       default, autoEdit or yolo (default: default)
      --workspace DIR   where shell commands would run, for the shell rules
                        (default: the current directory)
  -h, --help            show this help

${MODES}

Examples:
  interlock explain bash '{"command":"rm -rf /"}'
  interlock explain write_file '{"path":"NOTES.md","content":"hi"}' --mode autoEdit --json

Exit codes:
  0    a decision was printed (allow, ask or deny alike)
  2    usage error: no tool, arguments that are not a JSON object, a bad --mode
       or --workspace
`;

/** `interlock worker --help`. */
export const WORKER_HELP = `Usage: interlock worker <workflow.toml|json>… [options]

Takes forward the threads of these workflows, with the built-in tools, in this process:
after answers given anywhere (the web inbox, the chat, interlock respond from a process
started with continueIn "workers"), when a question's deadline passes (it is timed out
and the thread goes on), and when the process that ran a thread died. It takes only the
threads of the workflows it serves; run several workers on one store to share the work.
Runs until Ctrl+C or SIGTERM.

Options:
  --store SPEC         the shared store: sqlite:<path> or postgres://… (default
                       sqlite:.interlock/interlock.db, or INTERLOCK_STORE)
  --model NAME         scripted, openai:<model> or anthropic:<model> (default:
                       the project file's [models.default], else scripted)
  --base-url URL       the server of the model (see interlock run --help)
  --mode MODE          default, autoEdit or yolo (see interlock run --help)
  --workspace DIR      the directory the file and shell tools are confined to
  --concurrency N      how many threads it takes forward at once (default 4)
  --health-port N      answer GET /healthz (the process lives) and GET /readyz (store,
                       migrations, job queue: 200, or 503 naming the failing check) on
                       this port, for an orchestrator's probes; 0 picks a free one
  --health-host HOST   where the health port listens (default 127.0.0.1)
  -h, --help           show this help

Exit codes:
  0    stopped by Ctrl+C or SIGTERM
  1    the store or a workflow could not be opened
  2    usage error
`;

/** `interlock mcp --help`. */
export const MCP_HELP = `Usage: interlock mcp list [SERVER...] [--json] [--store SPEC]
       interlock mcp serve [--http PORT] [--host HOST] [--store SPEC] [options]

list   starts the MCP servers of the project file ([mcp.servers.<name>] in
       interlock.toml) — the ones named, or all, and says which on stderr — and
       prints each tool as Interlock offers it (mcp__<server>__<tool>): its
       category, risk, and whether its definition is the one a person approved
       ("changed since approved" asks again). Characters outside printable ASCII
       in names are shown as <U+XXXX> markers; a per-tool setting that matches no
       tool is warned about.

serve  is the MCP server other agents ask whether a tool call may run: tools
       approval_prompt (Claude Code's --permission-prompt-tool contract: input
       { tool_name, input, tool_use_id }, answer {"behavior":"allow",
       "updatedInput":…} or {"behavior":"deny","message":…}) and ask_user (a
       question for a person). Calls are decided by the project file's rules; when
       a person is needed they answer in the web inbox, the chat, or with
       interlock pending / interlock respond, and the answer goes back to the
       agent. Waits report progress so the client does not time out; a client that
       gives up cancels its question. It only decides: it runs no tool and starts
       none of the project file's MCP servers. Stdio by default; --http serves
       Streamable HTTP at /mcp, to clients on this machine that send no Origin
       (a web page's requests are refused). Runs until Ctrl+C, SIGTERM, or the
       end of stdin.

Options:
  --store SPEC               the store people answer from: sqlite:<path> or
                             postgres://… (default sqlite:.interlock/interlock.db,
                             or INTERLOCK_STORE)
  --json                     list: print one JSON object
  --http PORT                serve: Streamable HTTP on this port (0 picks one)
  --host HOST                serve: the address to listen on (default 127.0.0.1;
                             another address needs --token-env)
  --token-env VARIABLE       serve: every HTTP request must carry
                             Authorization: Bearer <the variable's value>
  --allow-host NAME          serve: answer to this Host too (repeatable)
  --allow-origin ORIGIN      serve: accept requests from web pages of this origin
                             (repeatable; default none)
  --mode MODE                serve: default, autoEdit or yolo
  --workspace DIR            serve: the agent's working directory (file writes
                             outside it are refused)
  --progress-interval MS     serve: how often a waiting call reports progress
                             (default 10000)
  --answer-timeout DURATION  serve: how long a person has to answer (10m, 2h);
                             a call not approved in time is denied. Default: no
                             deadline — the question waits as long as the agent
                             waits for it (its own timeout, or closing the
                             connection, cancels it)
  -h, --help                 show this help

Exit codes:
  0    listed, or stopped
  1    a server could not be reached, or the store could not be opened
  2    usage error
`;

/** `interlock config --help`. */
export const CONFIG_HELP = `Usage: interlock config check [interlock.toml|interlock.json]

Checks the project file (the one given, or interlock.toml / interlock.json in the
current directory) as every command would read it: unknown keys, wrong-case values,
prototype keys, a key given twice, secrets written into the file, tools that do not
exist, rules that do not parse or allow every call, and refused safe-list entries.
Lists every error with its key, and warns about risky entries (yolo, approval off,
a shell or network tool whitelisted).

Options:
  -h, --help   show this help

Exit codes:
  0    the file is valid (warnings or not)
  1    the file has errors or cannot be read
  2    usage error
`;

/** `interlock validate --help`. */
export const VALIDATE_HELP = `Usage: interlock validate <workflow.toml|json> [--tool NAME]…

Checks a workflow file completely (schema, graph, variables, expressions, the
tools its LLM nodes name, and the files its SUBGRAPH nodes name). Prints "valid",
or every error with its path (e.g. nodes[3].config.variables[0].scope). The tools
it names must be built-ins (those of the project file), or named with --tool.

Options:
  --tool NAME  a tool your service registers (createWorker({ tools })), which the
               CLI does not hold: a workflow naming it is valid (repeatable)
  -h, --help   show this help

Exit codes:
  0    the workflow is valid
  1    the workflow is invalid or cannot be read
  2    usage error
`;
