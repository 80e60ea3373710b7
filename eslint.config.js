// ESLint flat config, without type information (fast: no TypeScript program is built):
// eslint + typescript-eslint recommended everywhere, and the rule of the layers
// (docs/architecture.md) as no-restricted-imports:
//   sdk-types  depends on nothing of ours, no Node APIs, no rxjs/inversify
//   receipts   depends on nothing of ours (jose only): a service may depend on it alone
//   core       depends on @interlock/sdk-types and @interlock/receipts only
//   apps       depend on the public entry points of core and sdk-types only
// Flat config does not merge a rule's options: the last matching block sets the whole
// no-restricted-imports rule for a file, so each layer lists everything it forbids.
// The rules that need types (typescript-eslint's strictTypeChecked on the shipped sources)
// run in oxlint's type-aware mode on TypeScript 7 (.oxlintrc.json, `pnpm lint`): the same
// rules with the same options at a sixth of the cost; CONTRIBUTING.md says which and why.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `node:*` and the bare names of Node's built-in modules (`fs`, `fs/promises`, …). */
const NODE_BUILTIN = `^(?:node:|(?:${builtinModules
  .filter((name) => !name.startsWith('_'))
  .map(escapeRegex)
  .join('|')})$)`;

/** A relative path that climbs out of the current package into another one. */
const relativeInto = (folders) => `^(?:\\.\\.?/)*\\.\\./(?:${folders.join('|')})/`;

/** Shipped source: oxlint lints it with type information; its eslint-disable comments for those rules stay. */
const TYPED_SOURCE = ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts', 'bench/src/**/*.ts'];
/** Tests, their fixtures, the `./testing` fakes and what the adapters' tests share. */
const NOT_TYPED = ['**/*.test.ts', '**/__fixtures__/**', '**/testing/**', 'packages/testing-adapters/**'];

/** The framework adapters (F56): packages of their own on core's public API. */
const ADAPTERS = [
  'packages/ai-sdk/**',
  'packages/openai-agents/**',
  'packages/langgraph/**',
  'packages/claude-agent-sdk/**',
];

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/** The adapters' tests and their fixtures. */
const ADAPTER_TESTS = ADAPTERS.map((adapter) => adapter.replace('/**', '/src/**/{*.test.ts,__fixtures__/**}'));

/** An adapter's layer: core's public API, the adapters, and `also` (a package of ours) where given. */
const adapterLayer = (also) =>
  restrict(
    {
      regex: `^@interlock/(?!(?:core|core/testing|sdk-types|receipts|ai-sdk|openai-agents|langgraph|claude-agent-sdk${also === undefined ? '' : `|${also}`})$)`,
      message:
        "an adapter uses the public API only: '@interlock/core', '@interlock/core/testing' or '@interlock/sdk-types' (no src/ or dist/ deep imports; if an adapter needs something, core exports it); its tests also '@interlock/testing-adapters'.",
    },
    {
      regex: relativeInto(['packages', 'core', 'sdk-types', 'cli', 'web', 'apps']),
      message: "an adapter may not reach into another package by a relative path: import '@interlock/core'.",
    },
  );

const sdkTypesLayer = [
  {
    regex: '^@interlock/',
    message: 'sdk-types depends on nothing of ours (layer rule, docs/architecture.md).',
  },
  {
    regex: '^(?:(?:rxjs|inversify|reflect-metadata)(?:/|$)|@inversifyjs/)',
    message: 'sdk-types is zod schemas only: no rxjs, no inversify, no decorators.',
  },
  {
    regex: relativeInto(['core', 'cli', 'web', 'packages', 'apps']),
    message: 'sdk-types may not reach into another package by a relative path.',
  },
];

export default defineConfig(
  globalIgnores([
    '**/dist/',
    '**/node_modules/',
    '**/coverage/',
    '**/.turbo/',
    '**/*.d.ts',
    'packages/sdk-types/workflow.schema.json',
  ]),

  js.configs.recommended,
  tseslint.configs.recommended,

  // typescript-eslint's strict rules that need no types, on shipped source (its typed rules:
  // .oxlintrc.json). Before the repository's own blocks below, so their options win.
  ...tseslint.configs.strict.map((config) => ({ ...config, files: TYPED_SOURCE, ignores: NOT_TYPED })),
  {
    // The comments that turn off a typed rule on a line are read by oxlint (.oxlintrc.json);
    // ESLint, which does not run those rules, would call them unused.
    files: TYPED_SOURCE,
    ignores: NOT_TYPED,
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },

  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      // Only plain .js/.mjs files need these (no-undef is off for TypeScript files).
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  {
    files: ['**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' },
  },
  {
    // Tests and their helpers may assert what the test just arranged.
    files: ['**/*.test.ts', '**/__fixtures__/**', 'apps/*/test/**', 'packages/testing-adapters/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },

  // ---- One writer (issue 39, docs/architecture.md "Who writes") ----------------------------

  {
    // A store's one write, `commit(unit)`, has three callers: Run (engine/run.ts and its
    // engine/run-store.ts: what a thread's run does), the answer desk (engine/answer-desk.ts:
    // every other write of the engine — answers, deadlines, escalations, attempts, hand-overs,
    // definitions, anchors, and the global variables of the engine's own scopes through
    // `keepGlobals`: receipt keys, a receipt of a call run outside a run, the web app's
    // sessions and their key) and the job runner (workers/: the jobs of a worker process).
    // Everything else in core and in the apps asks one of them (an app through
    // `interlock.keepGlobals`). Tests, fixtures and the conformance suite write units of their own.
    files: ['packages/core/src/**/*.ts', 'apps/*/src/**/*.ts'],
    ignores: [
      ...NOT_TYPED,
      'packages/core/src/engine/run.ts',
      'packages/core/src/engine/run-store.ts',
      'packages/core/src/engine/answer-desk.ts',
      'packages/core/src/workers/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "MemberExpression[property.name='commit'][object.name=/^store$/i]",
          "MemberExpression[property.name='commit'][object.property.name=/^store$/i]",
        ].map((selector) => ({
          selector,
          message:
            'store.commit is called by Run (a thread\'s run), the answer desk (engine/answer-desk.ts) and the job runner (workers/) only: apply a step to the run, or write through the desk (an app: interlock.keepGlobals; docs/architecture.md, "Who writes").',
        })),
      ],
    },
  },

  // ---- The layer rule ------------------------------------------------------------------

  {
    files: ['packages/sdk-types/**'],
    rules: restrict(...sdkTypesLayer, {
      regex: NODE_BUILTIN,
      message: 'sdk-types runs anywhere: no Node APIs (zod only).',
    }),
  },
  {
    // Build scripts (JSON Schema generation) and tests run in Node and are not shipped
    // (tsconfig.build.json excludes tests): Node built-ins are allowed there, every
    // other sdk-types restriction stays.
    files: ['packages/sdk-types/scripts/**', 'packages/sdk-types/**/*.test.ts'],
    rules: restrict(...sdkTypesLayer),
  },

  {
    // Approval receipts (F63): the leaf a tool's service depends on alone, with jose; core signs with it.
    files: ['packages/receipts/**'],
    rules: restrict(
      {
        regex: NODE_BUILTIN,
        message: '@interlock/receipts runs wherever jose does (Web Crypto): no Node APIs.',
      },
      {
        regex: '^@interlock/',
        message:
          '@interlock/receipts depends on nothing of ours: a service installs it alone (layer rule, docs/architecture.md).',
      },
      {
        regex: relativeInto(['core', 'sdk-types', 'cli', 'web', 'packages', 'apps']),
        message: 'the receipts package may not reach into another package by a relative path.',
      },
    ),
  },

  {
    files: ['packages/core/**'],
    rules: restrict(
      {
        // Anything under @interlock/ except exactly '@interlock/sdk-types' or '@interlock/receipts' (no deep imports either).
        regex: '^@interlock/(?!(?:sdk-types|receipts)$)',
        message:
          "core may import '@interlock/sdk-types' and '@interlock/receipts' only: not itself by package name (use a relative path), not an app, not a deep path (layer rule, docs/architecture.md).",
      },
      {
        regex: relativeInto(['sdk-types', 'cli', 'web', 'packages', 'apps']),
        message: "core may not reach into another package by a relative path: import '@interlock/sdk-types'.",
      },
    ),
  },

  {
    // The chat channel and the messaging platforms plugged into it (F57): packages on core's
    // public API; a platform package may use @interlock/chat's port, nothing else of ours.
    files: ['packages/chat/**', 'packages/chat-*/**'],
    rules: restrict(
      {
        regex: '^@interlock/(?!(?:core|core/testing|sdk-types|chat|chat/testing)$)',
        message:
          "the chat packages use '@interlock/core', '@interlock/core/testing', '@interlock/sdk-types' and '@interlock/chat' only: no app, no deep path (layer rule, docs/architecture.md).",
      },
      {
        regex: relativeInto(['core', 'sdk-types', 'chat', 'chat-[a-z]+', 'cli', 'web', 'packages', 'apps']),
        message: 'a chat package may not reach into another package by a relative path: import it by name.',
      },
    ),
  },

  {
    files: ['apps/**', 'examples/**'],
    rules: restrict(
      {
        regex:
          '^@interlock/(?!(?:core|core/testing|core/testing/conformance|sdk-types|receipts|chat(?:-[a-z]+)?(?:/testing)?|ai-sdk|openai-agents|langgraph|claude-agent-sdk|telemetry)$)',
        message:
          "apps use the public API only: '@interlock/core', '@interlock/core/testing', '@interlock/core/testing/conformance', '@interlock/sdk-types', '@interlock/telemetry', a chat package or an adapter's package (no src/ or dist/ deep imports; if an app needs something, core exports it).",
      },
      {
        regex: relativeInto(['packages', 'core', 'sdk-types', 'cli', 'web']),
        message:
          "apps may not reach into another package by a relative path: import '@interlock/core' or '@interlock/sdk-types'.",
      },
    ),
  },

  {
    // The OpenTelemetry SDK set up for Interlock's processes (F59): beside core, on sdk-types' config only.
    files: ['packages/telemetry/**'],
    rules: restrict(
      {
        regex: '^@interlock/(?!sdk-types$)',
        message: "@interlock/telemetry may import '@interlock/sdk-types' only (layer rule, docs/architecture.md).",
      },
      {
        regex: relativeInto(['core', 'sdk-types', 'cli', 'web', 'packages', 'apps']),
        message: 'the telemetry package may not reach into another package by a relative path.',
      },
    ),
  },

  // The framework adapters (F56) stand where the apps stand: on core's public API only; their
  // tests also use what the adapters' tests share, the private @interlock/testing-adapters.
  { files: ADAPTERS, rules: adapterLayer() },
  { files: ADAPTER_TESTS, rules: adapterLayer('testing-adapters') },

  {
    // What the adapters' tests share (private, never published): on core's public API, no adapter.
    files: ['packages/testing-adapters/**'],
    rules: restrict(
      {
        regex: '^@interlock/(?!(?:core|core/testing|sdk-types)$)',
        message:
          "@interlock/testing-adapters uses '@interlock/core', '@interlock/core/testing' and '@interlock/sdk-types' only: an adapter's cases drive it through an AgentDriver.",
      },
      {
        regex: relativeInto(['packages', 'core', 'sdk-types', 'cli', 'web', 'apps']),
        message: 'the adapters’ test helpers may not reach into another package by a relative path.',
      },
    ),
  },

  {
    // The web page's modules are served as they are: the browser loads relative modules only.
    // Types from sdk-types come in through JSDoc `import('@interlock/sdk-types')`, never an import.
    files: ['apps/web/public/**/*.js'],
    rules: restrict({
      regex: '^(?!\\.{1,2}/)',
      message:
        'the page loads in the browser as it is: import other page modules by relative path only (types: JSDoc import()).',
    }),
  },
);
