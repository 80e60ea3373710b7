import { STORE_ENVIRONMENT_VARIABLE } from './store-option.js';

/** How `--store` is chosen; shared by every help that takes it. */
export const STORE_HELP = `Stores (--store SPEC, or the ${STORE_ENVIRONMENT_VARIABLE} environment variable):
  sqlite:<path>        a SQLite file (default: sqlite:.interlock/interlock.db in
                       the current directory)
  postgres://user:password@host:port/database[?schema=name]   (or postgresql://)
                       PostgreSQL; ?schema= keeps the tables in that schema. The
                       password is never printed; ${STORE_ENVIRONMENT_VARIABLE} keeps it out
                       of the command line.
  memory               nothing outlives the process
  Threads in a SQLite or PostgreSQL store outlive the process: list what waits with
  interlock pending, answer it with interlock respond from any terminal, or
  continue it with interlock resume. The CLI notes each thread's workflow file,
  workspace, mode and model in threads/ beside the SQLite file (for PostgreSQL:
  .interlock/threads/ in the current directory), and resume and respond use them
  unless --workspace, --mode or --model say otherwise.`;

const CONTINUE_OPTIONS = `      --store SPEC        the store (see Stores below)
      --model MODEL       scripted, openai:<model> or anthropic:<model>
                          (default: as the thread was started: the flag, else
                          the project file's [models.default], else scripted)
      --base-url URL      the server of the model
      --mode MODE         default, autoEdit or yolo (default: as started)
      --workspace DIR     where the tools work (default: as started)`;

const RUN_EXIT_CODES = `Exit codes:
  0    the thread completed
  1    the thread failed, or the store or thread could not be read
  2    usage error: unknown option, bad --store, --mode, --model or --workspace
  3    the thread is left waiting for an answer
  130  interrupted with Ctrl+C (the thread is left waiting) or cancelled`;

/** `interlock respond --help`. */
export const RESPOND_HELP = `Usage: interlock respond <interactionId> <answer> [options]

Answers an interaction that waits (see interlock pending), from any process on the
same store. The answer is checked first, an edit as the rules will check it (a
deny rule, a banned command, a path outside the workspace: refused with the
reason, and the question still waits); once stored, the thread continues in
this process and its outcome is printed. When standard input is a terminal,
further questions of the thread are asked here; otherwise they stay pending.
When another terminal is asking this very question right now (interlock run or
resume), the answer is stored and that terminal takes the thread forward: it
shows the answer and the thread finishing. If that process died, its claim
runs out after 15 s and this command takes the thread forward itself.
In a deployment (a live worker serves the thread's workflow version), the
answer is stored with the job that hands the thread to that worker, as the web
inbox does, and this command says so and exits 0.

Answers:
  approve [--instruction I] [--remember]   approve a tool call (--remember: for
                                           this session, where offered)
  reject [--reason R] [--instruction I]    reject it; the reason goes to the model
  edit '<json>' [--instruction I]          approve it with these arguments instead
                                           (checked against the tool's schema and
                                           the rules; refused with the reason)
  answer '<text or json>'                  answer a question (UPDATE_VARIABLES or
                                           ADD_MESSAGE), read per its input kind:
                                           text, yes/no, one of the choices, JSON
  --resolution done|retry|failed [--reason R]
                                           answer a call that started before the
                                           process stopped (stage recovery): it
                                           ran (done), run it again (retry), or
                                           report it failed (failed); approve,
                                           reject and edit are refused for it

Options:
      --json              print one line: {"result","interactionId","threadId",
                          "continuation","status","pendingInteractionIds",
                          "output","answeredBy","error","exitCode"}
${CONTINUE_OPTIONS}
  -h, --help              show this help

${STORE_HELP}

Exit codes:
  0    the answer was accepted and the thread completed (or a worker, or another
       process that holds the thread, takes it forward; or it had ended)
  1    the thread failed, the answer was refused (invalid, an edit the rules
       refuse, wrong kind of answer, unknown interaction: the question still
       waits), or the store failed before anything was stored
  2    usage error: unknown answer or option, bad JSON for edit, bad --store
  3    the thread waits again (the new pending interaction ids are printed)
  4    the interaction was already answered: nothing changed
  5    the interaction expired (its deadline passed): nothing ran
  6    the store failed while the answer was being committed: it may or may
       not be stored (interlock pending shows whether it still waits; the same
       answer again is safe)
  130  interrupted with Ctrl+C (the thread is left waiting)

Examples:
  interlock respond 3f1c… approve
  interlock respond 3f1c… reject --reason "not on a Friday"
  interlock respond 3f1c… edit '{"command":"ls"}'
  interlock respond 9a2b… answer yes
  interlock respond 7c4d… --resolution done
`;

/** `interlock resume --help`. */
export const RESUME_HELP = `Usage: interlock resume <threadId> [options]

Continues a waiting or interrupted thread in this process, with the terminal:
its pending questions are asked here (prompts in a terminal, one line each from
a pipe, as in interlock run). It never re-asks a question already answered.

Options:
      --json              print each event as one JSON line, then an OUTCOME line
${CONTINUE_OPTIONS}
  -h, --help              show this help

${STORE_HELP}

${RUN_EXIT_CODES}
`;

/** `interlock threads --help`. */
export const THREADS_HELP = `Usage: interlock threads [--status STATUS] [--json] [--store SPEC]

Lists the threads of the store, most recently updated first: id, workflow and
version, status, last update, and how many interactions it waits for.

Options:
      --status STATUS   waiting, running (or interrupted), completed, failed
                        or cancelled
      --json            print one JSON array of {"threadId","workflowId",
                        "workflowVersion","status","channel",
                        "pendingInteractionIds","steps","createdAt","updatedAt",
                        "output","error"}
      --store SPEC      the store (see Stores below)
  -h, --help            show this help

${STORE_HELP}

Exit codes:
  0    listed (an empty list too)
  1    the store could not be read
  2    usage error: bad --status or --store
`;

/** `interlock pending --help`. */
export const PENDING_HELP = `Usage: interlock pending [--thread ID] [--json] [--store SPEC]

Lists what waits for a person in the store, oldest first: each interaction's id,
thread, node, operation type and question; for a tool approval the tool, its
arguments, category, risk and the rule that asked; and the interlock respond
command that answers it.

Options:
      --thread ID       only this thread's
      --json            print one JSON array of the requests (each with its
                        interactionId, threadId, nodeId, operationType, prompt,
                        input, deadline and, for tool approvals, toolApproval)
      --store SPEC      the store (see Stores below)
  -h, --help            show this help

${STORE_HELP}

Exit codes:
  0    listed (nothing waiting too)
  1    the store could not be read
  2    usage error: bad --store
`;

/** `interlock audit --help`. */
export const AUDIT_HELP = `Usage: interlock audit [--verify] [--thread ID] [--json] [--store SPEC]
       interlock audit --verify --file FILE [--jwks FILE] [--json]

Prints the audit trail of tool-call decisions kept in the store, oldest first:
who or which rule allowed or denied which call, when, at which stage and why,
whichever process made the decision. With --verify, checks the hash chain of
the whole trail (changing or removing any entry breaks it) and the approval
receipts of the calls that ran: each must be signed by a key of the deployment
and name an entry that allowed exactly its call (tool, arguments, definition,
approvers). --json prints the chains' heads and anchors, the receipts and the
keys with the entries; --file checks such a saved copy against them, offline,
so a copy with entries cut from its end does not verify.

Options:
      --verify          check the hash chain and the receipts (exit 1 when
                        either is broken)
      --thread ID       only this thread's entries (and its head)
      --json            print {"store","entries":[…],"evidence":{"heads",
                        "anchors","legacyHead"},"receipts":[…],"keys":{…},
                        "verification":{…},"receiptCheck":{…}}
      --file FILE       read a copy interlock audit --json saved, not the store
      --jwks FILE       with --file: check the receipts against this JWKS
                        (interlock receipts keys), not the keys the copy carries
      --store SPEC      the store (see Stores below)
  -h, --help            show this help

${STORE_HELP}

Exit codes:
  0    printed (and, with --verify, the chain and the receipts hold)
  1    --verify found the chain or a receipt broken, or the store could not be
       read
  2    usage error: --file that is not a saved copy, --file with --store, --jwks
       without --file or not a JWKS
`;
