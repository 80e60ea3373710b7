import { anthropic, modelFromProjectConfig, openAICompatible, type ModelProvider } from '@interlock/core';
import { projectConfig } from './project-config-option.js';
import { createDemoModel } from './demo-model.js';
import { UsageError } from './usage-error.js';

/** The base URL of `--model openai:<model>` when `--base-url` is not given. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** `--model` and `--base-url` as given on the command line. */
export interface ModelOptions {
  model?: string;
  baseUrl?: string;
}

/**
 * Creates the model of `--model`: `scripted` is the offline demo model; `openai:<model>`
 * talks to an OpenAI-compatible server at `--base-url` (default https://api.openai.com/v1)
 * with the key from `OPENAI_API_KEY`; `anthropic:<model>` to Anthropic's Messages API (or
 * `--base-url`) with `ANTHROPIC_API_KEY`. Keys are never printed. Without `--model`, the
 * project file's `[models.default]` as core reads it (its key from `apiKeyEnv`; `--base-url`
 * replaces its `baseUrl`), else the demo model.
 *
 * @throws UsageError for an unknown model, an empty model name, `--base-url` without an
 *   openai model, or OpenAI's own server without `OPENAI_API_KEY`.
 */
export function createModel(
  options: ModelOptions,
  command: string,
  environment: NodeJS.ProcessEnv = process.env,
): ModelProvider {
  const project = projectConfig();
  const configured = project?.config.models?.['default'];
  // Without --model, the project file's [models.default], read as core reads it (apiKeyEnv, baseUrl).
  if (options.model === undefined && project !== undefined && configured !== undefined) {
    if (configured.provider === 'scripted') return scripted(options, command);
    try {
      return modelFromProjectConfig(
        project,
        'default',
        { ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }), requireKey: true },
        environment,
      );
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error), command);
    }
  }
  const spec = options.model ?? 'scripted';
  if (spec === 'scripted') return scripted(options, command);
  if (spec.startsWith('anthropic:')) return anthropicModel(spec, options, command, environment);
  if (!spec.startsWith('openai:')) {
    throw new UsageError(
      `--model ${JSON.stringify(spec)} is not a model: use scripted, openai:<model> (e.g. openai:gpt-4o-mini) or anthropic:<model>`,
      command,
    );
  }
  const model = spec.slice('openai:'.length).trim();
  if (model === '')
    throw new UsageError(
      '--model openai: needs the model name, e.g. openai:gpt-4o-mini or openai:llama3.1:8b',
      command,
    );
  const baseURL = options.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const apiKey = environment['OPENAI_API_KEY'] || undefined;
  if (apiKey === undefined && baseURL === DEFAULT_OPENAI_BASE_URL) {
    throw new UsageError(
      `--model ${spec} talks to ${DEFAULT_OPENAI_BASE_URL} and needs OPENAI_API_KEY in the environment (or give --base-url for a local server such as http://localhost:11434/v1)`,
      command,
    );
  }
  try {
    return openAICompatible({ baseURL, model, ...(apiKey === undefined ? {} : { apiKey }) });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}

/** The offline demo model (`scripted`), which has no server. */
function scripted(options: ModelOptions, command: string): ModelProvider {
  if (options.baseUrl !== undefined)
    throw new UsageError('--base-url applies to --model openai:<model> or anthropic:<model> only', command);
  return createDemoModel();
}

/** `anthropic:<model>`, with ANTHROPIC_API_KEY (required for Anthropic's own server). */
function anthropicModel(
  spec: string,
  options: ModelOptions,
  command: string,
  environment: NodeJS.ProcessEnv,
): ModelProvider {
  const model = spec.slice('anthropic:'.length).trim();
  if (model === '')
    throw new UsageError('--model anthropic: needs the model name, e.g. anthropic:claude-sonnet-4-5', command);
  const apiKey = environment['ANTHROPIC_API_KEY'] || undefined;
  if (apiKey === undefined && options.baseUrl === undefined) {
    throw new UsageError(
      `--model ${spec} talks to https://api.anthropic.com and needs ANTHROPIC_API_KEY in the environment (or give --base-url for a proxy)`,
      command,
    );
  }
  try {
    return anthropic({
      model,
      ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
      ...(apiKey === undefined ? {} : { apiKey }),
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), command);
  }
}
