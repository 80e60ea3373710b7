/** docs/cli.md's demo in a terminal, as the screen showed it (`NO_COLOR=1`). */
export const CLI_DEMO_TERMINAL = `$ interlock demo coding-agent
Workspace: /tmp/interlock-coding-agent-qcHcU6 (a new temporary directory with a README.md; the tools work only inside it)
Thread f95ceb3a-9cc4-4772-ad85-a14eee41990f of workflow "coding-agent" started
› start (START)
› agent (LLM)
  Let me look around: read the README, write my notes to NOTES.md, list the files, and start from a clean slate.
⚙ read_file(README.md) proposed: {"path":"README.md"}
  read_file(README.md) → allow (rule category:read)
⚙ write_file(NOTES.md) proposed: {"path":"NOTES.md","content":"# Notes\\n\\n- The README describes a small demo project.\\n- Next: list the files, then clean up.\\n"}
  write_file(NOTES.md) → ask (rule ask:risk:MEDIUM)
⚙ bash(ls -la) proposed: {"command":"ls -la"}
  bash(ls -la) → ask (rule ask:risk:HIGH)
⚙ bash(rm -rf /) proposed: {"command":"rm -rf /"}
  bash(rm -rf /) → deny (rule shell:banned:rm-root)
  bash(rm -rf /) ✘ EXECUTION_REJECTED: This call was not run: denied by policy (shell:banned:rm-root): banned command: recursive delete of /, everything in /, a system directory or a device; recursi…
◆ write_file(NOTES.md): it needs your approval
◆ bash(ls -la): it needs your approval
  read_file(README.md) ▶ running
  read_file(README.md) ✔ SUCCESS: # Demo project ⏎ A small project for the Interlock coding-agent demo. The agent may read this file, ⏎ write NOTES.md (if you approve), and propose shell comman…
2 tool calls wait for you:
  1. write_file(NOTES.md) · write · risk MEDIUM
  2. bash(ls -la) · command · risk HIGH
✔ How do you want to answer them? One by one (see each call in full)
Tool call (1 of 2): write_file
  Create or overwrite a text file of the workspace.
  category write · risk MEDIUM · asked by rule ask:risk:MEDIUM
  stage execution
  arguments:
    {
      "path": "NOTES.md",
      "content": "# Notes\\n\\n- The README describes a small demo project.\\n- Next: list the files, then clean up.\\n"
    }
✔ Allow write_file to run with these arguments? Add an instruction for the model
✔ Instruction for the model (an empty line goes back) keep the notes short
✔ Approve or reject the call together with the instruction? Approve the call, and tell the model
Tool call (2 of 2): bash
  Run a bash command in the workspace directory and return its exit code and output.
  category command · risk HIGH · asked by rule ask:risk:HIGH
  stage execution
  arguments:
    {
      "command": "ls -la",
      "timeoutMs": 60000
    }
✔ Allow bash to run with these arguments? Reject
✔ Reason, for the model (optional; Enter to skip) not in the demo
✓ write_file(NOTES.md) answered by terminal: approved, with an instruction for the model: keep the notes short
  write_file(NOTES.md) → allow (by a person)
✓ bash(ls -la) answered by terminal: rejected: not in the demo
  bash(ls -la) → deny (by a person)
  bash(ls -la) ✘ EXECUTION_REJECTED: This call was not run: the user rejected it: not in the demo. Do not retry it unchanged; change your approach or ask the user.
  write_file(NOTES.md) ▶ running
  write_file(NOTES.md) ✔ SUCCESS: wrote 93 characters to NOTES.md
  Done. Ran: read_file README.md, write_file NOTES.md.
  Refused: bash \`ls -la\` (the user rejected it: not in the demo); bash \`rm -rf /\` (denied by policy (shell:banned:rm-root)).
  Noted your instruction: "keep the notes short".
› end (END)
✔ completed · 3 steps · thread f95ceb3a-9cc4-4772-ad85-a14eee41990f
Output:
Done. Ran: read_file README.md, write_file NOTES.md.
Refused: bash \`ls -la\` (the user rejected it: not in the demo); bash \`rm -rf /\` (denied by policy (shell:banned:rm-root)).
Noted your instruction: "keep the notes short".
Audit: 4 tool-call decisions (2 allowed, 2 denied) · hash chain intact
[exit code 0]
`;
