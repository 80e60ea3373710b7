import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import { BUILT_CLI } from '../built-cli.js';
import { spawnProcessGroup } from '@interlock/core/testing';

/*
 * What the settings × commands table (../project-file.e2e.test.ts) runs: a model server of
 * the team's (OpenAI's chat-completions API) that records who called it with which key, and
 * the long-running commands (`interlock worker`, `interlock mcp serve --http`, `interlock-web`)
 * as processes that say when they are ready.
 */

export const WEB_MAIN = fileURLToPath(new URL('../../../web/dist/main.js', import.meta.url));

/** What the model server says to every call. */
export const MODEL_TEXT = "Hello from the team's model.";

export interface ModelServer {
  /** `http://127.0.0.1:<port>/v1`: a project file's `baseUrl`. */
  baseUrl: string;
  /** The headers of every call it answered. */
  calls: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** An OpenAI-compatible server that answers every chat completion with {@link MODEL_TEXT}. */
export async function startModelServer(): Promise<ModelServer> {
  const calls: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      calls.push(request.headers);
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as { stream?: boolean };
      const base = { id: 'chatcmpl-team', created: 1_700_000_000, model: 'team-model' };
      if (body.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [
              { index: 0, message: { role: 'assistant', content: MODEL_TEXT }, logprobs: null, finish_reason: 'stop' },
            ],
          }),
        );
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
      response.end(`${chunk({ role: 'assistant', content: MODEL_TEXT }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A long-running process; `printed` resolves once its output matched, `exit` when it ended. */
export interface Running {
  child: ChildProcess;
  printed(pattern: RegExp): Promise<RegExpExecArray>;
  output(): string;
  exit: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `node <script> …args` in `directory` (the built CLI unless `script` says otherwise). */
export function startProcess(
  directory: string,
  args: string[],
  environment: NodeJS.ProcessEnv = {},
  script = BUILT_CLI,
): Running {
  const child = spawnProcessGroup(process.execPath, [script, ...args], {
    cwd: directory,
    env: { ...process.env, NO_COLOR: '1', INTERLOCK_STORE: '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiting: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
  const heard = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of [...waiting]) {
      const match = waiter.pattern.exec(text);
      if (match) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout?.on('data', heard);
  child.stderr?.on('data', heard);
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    exit,
    output: () => text,
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const match = pattern.exec(text);
        if (match) return resolve(match);
        waiting.push({ pattern, resolve });
        void exit.then(() => reject(new Error(`exited before printing ${String(pattern)}:\n${text}`)));
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await exit;
    },
  };
}
