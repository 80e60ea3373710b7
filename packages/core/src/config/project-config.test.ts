import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createInterlock, type Interlock } from '../index.js';
import { loadProjectConfig, mergeApprovalLayers } from './project-config.js';

/** Issue 16: one project file (interlock.toml), its checks and its layers. */

const opened: Interlock[] = [];
afterEach(async () => {
  for (const interlock of opened.splice(0)) await interlock.close();
});

async function projectFile(text: string, name = 'interlock.toml'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-config-'));
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

const PROJECT = `
[store]
type = "sqlite"
path = "state/interlock.db"

[tools]
builtins = ["read_file", "write_file", "bash"]
workspace = "work"

[approval]
mode = "autoEdit"
memoryWindow = "10m"
denyRules = ['tool == "bash" && args.command.startsWith("terraform")']
toolOverrides = { write_file = true }

[approval.shell]
safePrograms = ["make"]
extraBanned = [{ id = "kubectl-prod", programs = ["kubectl"], reason = "touches production", arguments = ["--context=prod"] }]

[approvers.workflows]
release-agent = ["alice"]
`;

describe('loadProjectConfig', () => {
  it('reads a TOML project file', async () => {
    const loaded = await loadProjectConfig(await projectFile(PROJECT));
    expect(loaded.config.approval).toMatchObject({
      mode: 'autoEdit',
      memoryWindow: 600_000,
      toolOverrides: { write_file: true },
    });
    expect(loaded.config.approvers?.workflows).toEqual({ 'release-agent': ['alice'] });
  });

  it.each([
    ['[approval]\nmodee = "yolo"', 'approval: unknown key modee'],
    ['[approval]\nmode = "YOLO"', 'approval.mode'],
    ['[approval]\nmemoryWindow = "forever"', 'approval.memoryWindow'],
    ['[approval.toolOverrides]\n__proto__ = true', 'approval.toolOverrides.__proto__'],
    ['[store]\ntype = "postgres"\nurl = "postgres://app:secret@db/app"', 'store'],
    ['[models.default]\nprovider = "openai"\napiKey = "sk-secret"', 'models.default: unknown key apiKey'],
    ['[models.default]\nprovider = "openai"\napiKeyEnv = "sk-secret"', 'models.default.apiKeyEnv'],
    ['colour = "blue"', '(root): unknown key colour'],
  ])('refuses %j, naming %s', async (text, where) => {
    await expect(loadProjectConfig(await projectFile(text))).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining(where),
    });
  });

  it('refuses a JSON project file with a key given twice', async () => {
    await expect(
      loadProjectConfig(await projectFile('{"approval":{"mode":"default","mode":"yolo"}}', 'interlock.json')),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('appears twice'),
    });
  });
});

describe('layers: defaults → project file → code and flags', () => {
  it('lets a later layer set the mode and add rules, and keeps every deny', () => {
    const merged = mergeApprovalLayers([
      {
        name: 'interlock.toml',
        approval: { mode: 'default', denyRules: ['tool == "bash"'], toolOverrides: { http_fetch: 'deny' } },
        shell: { extraBanned: [{ id: 'a', programs: ['a'], reason: 'a' }] },
      },
      {
        name: '--mode',
        approval: { mode: 'yolo', denyRules: ['tool == "x"'], allowRules: ['tool == "read_file"'] },
        shell: { safePrograms: ['make'] },
      },
    ]);
    expect(merged.approval).toMatchObject({
      mode: 'yolo',
      denyRules: ['tool == "bash"', 'tool == "x"'],
      allowRules: ['tool == "read_file"'],
      toolOverrides: { http_fetch: 'deny' },
    });
    expect(merged.shell).toMatchObject({ extraBanned: [{ id: 'a' }], safePrograms: ['make'] });
  });

  it('refuses a later layer that loosens a deny', () => {
    const file = { name: 'interlock.toml', approval: { toolOverrides: { bash: 'deny' as const } } };
    expect(() => mergeApprovalLayers([file, { name: 'code', approval: { toolOverrides: { bash: false } } }])).toThrow(
      /toolOverrides.bash = false would loosen the deny of interlock.toml/,
    );
    expect(() => mergeApprovalLayers([file, { name: 'code', approval: { enabled: false } }])).toThrow(
      /would switch off the denies of interlock.toml/,
    );
    expect(() =>
      mergeApprovalLayers([
        { name: 'f', approval: { denyRules: ['true'] } },
        { name: 'code', approval: { enabled: false } },
      ]),
    ).toThrow(/switch off/);
  });
});

describe('createInterlock({ config })', () => {
  it('decides calls as the project file says, with the code as a later layer', async () => {
    const path = await projectFile(PROJECT);
    const interlock = await createInterlock({
      config: path,
      approval: { denyRules: ['tool == "write_file" && args.path == "LICENSE"'] },
    });
    opened.push(interlock);
    expect(interlock.explain({ toolName: 'bash', arguments: { command: 'terraform apply' } })).toMatchObject({
      outcome: 'deny',
      rule: 'deny-rule:0',
    });
    expect(interlock.explain({ toolName: 'write_file', arguments: { path: 'LICENSE', content: '' } })).toMatchObject({
      outcome: 'deny',
      rule: 'deny-rule:1',
    });
    // The file's toolOverrides asks for write_file even in autoEdit.
    expect(interlock.explain({ toolName: 'write_file', arguments: { path: 'notes.md', content: '' } })).toMatchObject({
      outcome: 'ask',
      rule: 'override:write_file',
    });
    expect(
      interlock.explain({ toolName: 'bash', arguments: { command: 'kubectl apply --context=prod -f x.yaml' } }),
    ).toMatchObject({ outcome: 'deny', rule: 'shell:banned:kubectl-prod' });
    // make is on the file's safe list: the shell rules pass it (bash, a HIGH-risk tool, still asks a person).
    expect(interlock.explain({ toolName: 'bash', arguments: { command: 'make build' } }).path).toContainEqual({
      rule: 'shell:risk',
      result: 'skip',
    });
    expect(interlock.explain({ toolName: 'bash', arguments: { command: 'mkdir build' } }).rule).toBe(
      'shell:unknown-program',
    );
    // Only the listed built-ins exist.
    expect(interlock.explain({ toolName: 'http_fetch', arguments: { url: 'https://example.com' } })).toMatchObject({
      outcome: 'deny',
      rule: 'tool:not-found',
    });
  });

  it('refuses code options that loosen the file', async () => {
    const path = await projectFile('[approval.toolOverrides]\nbash = "deny"\n');
    await expect(
      createInterlock({ config: path, tools: [], approval: { toolOverrides: { bash: true } } }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });

  it('reads a PostgreSQL URL only from the environment variable the file names', async () => {
    const path = await projectFile('[store]\ntype = "postgres"\nurlEnv = "INTERLOCK_TEST_UNSET_URL"\n');
    await expect(createInterlock({ config: path })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('INTERLOCK_TEST_UNSET_URL is not set'),
    });
  });
});
