import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('.', import.meta.url));
const TSC = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));

/** Issue 16: core's published declarations compile in an app with skipLibCheck: false. */
describe("@interlock/core's declarations", () => {
  it('compile with skipLibCheck false, and a handler written against them type-checks', () => {
    const directory = mkdtempSync(join(EXAMPLES, '.declarations-'));
    try {
      writeFileSync(
        join(directory, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: false,
            noEmit: true,
            types: ['node'],
          },
          files: ['app.ts'],
        }),
      );
      writeFileSync(
        join(directory, 'app.ts'),
        `import { approve, createInterlock, defineHandler, reject, type UserInteractionRequest } from '@interlock/core';
export const handler = defineHandler({
  async handle(request: UserInteractionRequest) {
    if (request.operationType !== 'TOOL_APPROVAL') return { outcome: 'deferred' as const };
    return request.toolApproval?.riskLevel === 'HIGH' ? reject('too risky') : approve({ remember: true });
  },
});
export const start = () => createInterlock({ handlers: { cli: handler } });
`,
      );
      const run = spawnSync(process.execPath, [TSC, '-p', directory], { encoding: 'utf8', cwd: EXAMPLES });
      expect(run.stdout + run.stderr).toBe('');
      expect(run.status).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
    // tsc over every declaration of node_modules: about 40 s on an idle machine, minutes on a busy one.
  }, 600_000);
});
