import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkProjectConfigFile, createInterlock, findProjectConfig, resolveStoreOptions } from '../index.js';

/*
 * The project file read one way by every surface (issue 28, F49): every problem of a file in
 * one check, the variables it names checked too, one file per directory, the built-in tools
 * by default, and a PostgreSQL URL's ?schema= read the same everywhere.
 */

async function projectFile(text: string, name = 'interlock.toml'): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'interlock-config-check-'));
  await writeFile(join(directory, name), text);
  return join(directory, name);
}

describe('checkProjectConfigFile (issue 28, F49)', () => {
  it('lists every problem of a file with eleven of them in one run, each with its key', async () => {
    const path = await projectFile(`workflows = ["missing.toml", "also-missing.toml"]

[store]
type = "postgres"
urlEnv = "INTERLOCK_CHECK_UNSET_URL"

[models.default]
provider = "openai"

[tools]
builtins = ["read_file", "rm_rf"]
workspace = "no-such-directory"

[approval]
denyRules = ['tool == "bash" &&', 'args.command.contains(']
allowRules = ['true']
toolOverrides = { teleport = "deny" }

[approval.shell]
safePrograms = ["sudo", "bash"]

[mcp.servers.github]
url = "https://mcp.example.com/mcp"
headersEnv = { Authorization = "INTERLOCK_CHECK_UNSET_TOKEN" }
`);
    const { errors } = await checkProjectConfigFile(path, {});
    expect(errors.map((error) => error.path).sort()).toEqual(
      [
        'store.urlEnv',
        'mcp.servers.github.headersEnv.Authorization',
        'models.default.model',
        'tools.builtins',
        'tools.workspace',
        'approval.denyRules[0]',
        'approval.denyRules[1]',
        'approval.allowRules[0]',
        'approval.toolOverrides.teleport',
        'approval.shell.safePrograms[0]',
        'approval.shell.safePrograms[1]',
        'workflows[0]',
        'workflows[1]',
      ].sort(),
    );
    expect(errors.find((error) => error.path === 'store.urlEnv')?.message).toBe(
      'the environment variable INTERLOCK_CHECK_UNSET_URL is not set',
    );
    expect(JSON.stringify(errors)).not.toContain('undefined');
  });

  it('lists what the schema refuses and what the rest of the file would do wrong, in the same run', async () => {
    const path = await projectFile(`colour = "blue"
workflows = ["gone.toml"]

[store]
type = "postgres"
urlEnv = "INTERLOCK_CHECK_UNSET_URL"

[approval]
mode = "YOLO"
denyRules = ['tool ==']

[approval.shell]
safePrograms = ["sudo"]

[[approval.shell.extraBanned]]
id = "no-reason"
programs = ["terraform"]
`);
    const { errors } = await checkProjectConfigFile(path, {});
    expect(errors.map((error) => error.path).sort()).toEqual(
      [
        '(root)',
        'approval.mode',
        'approval.shell.extraBanned.0.reason',
        'store.urlEnv',
        'approval.denyRules[0]',
        'approval.shell.safePrograms[0]',
        'workflows[0]',
      ].sort(),
    );
    expect(errors.find((error) => error.path === '(root)')?.message).toBe('unknown key colour');
  });

  it('refuses a URL whose ?schema= contradicts the file’s schema, and warns of a model key not set here', async () => {
    const path = await projectFile(`[store]
type = "postgres"
urlEnv = "DATABASE_URL"
schema = "team"

[models.default]
provider = "anthropic"
model = "claude-sonnet-4-5"
apiKeyEnv = "TEAM_ANTHROPIC_KEY"
`);
    const checked = await checkProjectConfigFile(path, { DATABASE_URL: 'postgres://db/app?schema=other' });
    expect(checked.errors).toEqual([{ path: 'store', message: expect.stringContaining('?schema=other') }]);
    expect(checked.warnings).toEqual([
      { path: 'models.default.apiKeyEnv', message: expect.stringContaining('TEAM_ANTHROPIC_KEY is not set here') },
    ]);
  });

  it('refuses a directory with both interlock.toml and interlock.json rather than pick one silently', async () => {
    const path = await projectFile('[approval]\nmode = "yolo"\n');
    await writeFile(join(path, '..', 'interlock.json'), '{}');
    await expect(findProjectConfig(join(path, '..'))).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('both interlock.toml and interlock.json'),
    });
  });
});

describe('createInterlock({ config }) reads the file as the commands do (issue 28, F49)', () => {
  it('has every built-in tool when the file lists none, and only those it lists otherwise', async () => {
    const all = await createInterlock({ config: await projectFile('[approval]\nmode = "default"\n') });
    expect(all.explain({ toolName: 'bash', arguments: { command: 'ls' } }).notFound).toBe(false);
    await all.close();
    const some = await createInterlock({ config: await projectFile('[tools]\nbuiltins = ["read_file"]\n') });
    expect(some.explain({ toolName: 'bash', arguments: { command: 'ls' } })).toMatchObject({ notFound: true });
    await some.close();
  });
});

describe('resolveStoreOptions: ?schema= in a PostgreSQL URL (issue 28)', () => {
  it('reads the schema from the URL and takes the parameter out of what the driver gets', () => {
    expect(
      resolveStoreOptions({ type: 'postgres', url: 'postgres://ada:pw@db:5432/app?schema=team&sslmode=require' }),
    ).toEqual({
      type: 'postgres',
      url: 'postgres://ada:pw@db:5432/app?sslmode=require',
      schema: 'team',
    });
  });

  it('refuses a URL and options that name two schemas', () => {
    expect(() =>
      resolveStoreOptions({ type: 'postgres', url: 'postgres://db/app?schema=team', schema: 'public' }),
    ).toThrow(/\?schema=team but the options say schema "public"/);
  });
});
