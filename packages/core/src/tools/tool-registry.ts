import type { ToolSpec } from '../llm/model-provider.js';
import { InterlockError } from '../errors/interlock-error.js';
import type { Tool } from './define-tool.js';

/** The tools of an Interlock instance, by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** `fallback` makes a tool from a name none of `tools` has, on first use (then it is kept). */
  constructor(
    tools: readonly Tool[] = [],
    private readonly fallback?: (name: string) => Tool | undefined,
  ) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) {
      throw new InterlockError('INVALID_OPTIONS', `two tools are named "${tool.name}": tool names must be unique`);
    }
    this.tools.set(tool.name, tool);
  }

  find(name: string): Tool | undefined {
    const known = this.tools.get(name);
    if (known !== undefined || this.fallback === undefined) return known;
    const made = this.fallback(name);
    if (made !== undefined && made.name === name) this.tools.set(name, made);
    return made?.name === name ? made : undefined;
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
