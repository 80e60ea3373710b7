import type { ToolSpec } from '../llm/model-provider.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { Tool } from './define-tool.js';

/** The tools of an Interlock instance, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: readonly Tool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) {
      throw new InterlockError('INVALID_OPTIONS', `two tools are named "${tool.name}": tool names must be unique`);
    }
    this.tools.set(tool.name, tool);
  }

  find(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The named tools as the model sees them; unknown names are skipped (validated at load time). */
  specs(names: readonly string[]): ToolSpec[] {
    return names.flatMap((name) => {
      const tool = this.tools.get(name);
      return tool ? [{ name: tool.name, description: tool.description, parameters: tool.jsonSchema }] : [];
    });
  }
}
