import { describe, expect, it } from 'vitest';
import { operandsOf } from './argument-predicates.js';
import { createShellClassifier } from './shell-classifier.js';
import { compileShellPolicy } from './shell-policy-options.js';

describe('shell policy options', () => {
  it('adds safe programs by name or with an argument check', async () => {
    const shell = await createShellClassifier({
      safePrograms: [
        'make',
        { program: 'pnpm', check: (args) => (args[0] === 'test' ? undefined : 'only pnpm test is safe') },
      ],
    });
    expect(shell.classify('make -n').verdict).toBe('safe');
    expect(shell.classify('pnpm test').verdict).toBe('safe');
    expect(shell.classify('pnpm install')).toMatchObject({
      verdict: 'ask',
      rule: 'shell:unsafe-arguments',
      reasons: ['only pnpm test is safe'],
    });
  });

  it('removes default safe programs', async () => {
    const shell = await createShellClassifier({ removeSafePrograms: ['cat'] });
    expect(shell.classify('cat README.md')).toMatchObject({ verdict: 'ask', rule: 'shell:unknown-program' });
  });

  it('bans extra patterns declared as data', async () => {
    const shell = await createShellClassifier({
      extraBanned: [
        {
          id: 'terraform-destroy',
          programs: ['terraform'],
          reason: 'destroys infrastructure',
          when: { subcommands: ['destroy'] },
        },
      ],
    });
    expect(shell.classify('terraform destroy -auto-approve')).toMatchObject({
      verdict: 'banned',
      rule: 'shell:banned:terraform-destroy',
    });
    expect(shell.classify('sudo terraform destroy').verdict).toBe('banned');
    expect(shell.classify('terraform plan').verdict).toBe('ask');
  });

  it('flags extra high-risk patterns declared with a predicate', async () => {
    const shell = await createShellClassifier({
      extraHighRisk: [
        {
          id: 'prod-deploy',
          programs: ['deploy*'],
          reason: 'deploys to production',
          when: { flags: ['--env'] },
          matches: (invocation) => operandsOf(invocation.args).includes('prod'),
        },
      ],
    });
    expect(shell.classify('deploy-app --env prod')).toMatchObject({
      verdict: 'high-risk',
      rule: 'shell:high-risk:prod-deploy',
    });
    expect(shell.classify('deploy-app --env staging').verdict).toBe('ask');
  });

  it('asks when a configured rule throws instead of failing the classification', async () => {
    const shell = await createShellClassifier({
      extraBanned: [
        {
          id: 'broken',
          programs: ['ls'],
          reason: 'never',
          matches: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    expect(shell.classify('ls')).toMatchObject({ verdict: 'ask', rule: 'shell:rule-error' });
  });

  it('turns default rules off by id', async () => {
    const shell = await createShellClassifier({ disabledRules: ['shell:high-risk:kill'] });
    expect(shell.classify('kill 1234')).toMatchObject({ verdict: 'ask', rule: 'shell:unknown-program' });
  });

  it('applies the configured size and depth caps', async () => {
    const short = await createShellClassifier({ maxLength: 10 });
    expect(short.classify('ls -la /tmp/project')).toMatchObject({ verdict: 'banned', rule: 'shell:too-long' });
    const shallow = await createShellClassifier({ maxDepth: 4 });
    expect(shallow.classify('echo $(echo $(echo $(ls)))').reasons).toContain(
      'the command is nested deeper than 4 levels',
    );
    expect(shallow.classify('ls -la').verdict).toBe('safe');
  });

  it('rejects limits that are not positive integers', () => {
    expect(() => compileShellPolicy({ maxDepth: 0 })).toThrow(RangeError);
    expect(() => compileShellPolicy({ maxLength: 1.5 })).toThrow(RangeError);
  });

  it('resolves relative paths against the working directory it is given', async () => {
    const shell = await createShellClassifier();
    expect(shell.classify('rm -rf ..', { cwd: '/home' }).verdict).toBe('banned');
    expect(shell.classify('rm -rf ..', { cwd: '/work/repo/src' }).verdict).toBe('high-risk');
    expect(shell.classify('rm -rf /home/ada', { homeDirectory: '/home/ada' }).rule).toBe('shell:banned:rm-home');
  });
});
