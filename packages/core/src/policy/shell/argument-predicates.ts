/**
 * Small predicates over a program's arguments, for rules. Options end at `--`.
 * A flag written `-x` (one letter) also matches inside a short-option cluster (`-rf`),
 * `--long` also matches `--long=value`, and anything else (`-delete`) must match exactly.
 */

/** The arguments before `--` that look like options. */
export function optionsOf(args: readonly string[]): string[] {
  const options: string[] = [];
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.startsWith('-') && arg !== '-') options.push(arg);
  }
  return options;
}

/** The arguments that are not options (everything after `--` counts). */
export function operandsOf(args: readonly string[]): string[] {
  const operands: string[] = [];
  let afterDoubleDash = false;
  for (const arg of args) {
    if (!afterDoubleDash && arg === '--') afterDoubleDash = true;
    else if (afterDoubleDash || !arg.startsWith('-') || arg === '-') operands.push(arg);
  }
  return operands;
}

/** True when one of `flags` is present (see the module comment for how they match). */
export function hasFlag(args: readonly string[], ...flags: string[]): boolean {
  const options = optionsOf(args);
  return flags.some((flag) => options.some((option) => matchesFlag(option, flag)));
}

function matchesFlag(option: string, flag: string): boolean {
  if (flag.startsWith('--')) return option === flag || option.startsWith(`${flag}=`);
  if (flag.length === 2 && flag.startsWith('-')) {
    return !option.startsWith('--') && option.slice(1).includes(flag.slice(1));
  }
  return option === flag;
}

/** The value of an option given as `-o value`, `-ovalue`, `--opt value` or `--opt=value`, for each occurrence. */
export function optionValues(args: readonly string[], ...names: string[]): string[] {
  const values: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (arg === '--') break;
    for (const name of names) {
      if (arg === name) values.push(args[index + 1] ?? '');
      else if (name.startsWith('--') && arg.startsWith(`${name}=`)) values.push(arg.slice(name.length + 1));
      else if (name.length === 2 && !name.startsWith('--') && arg.startsWith(name) && arg.length > 2) {
        values.push(arg.slice(2));
      }
    }
  }
  return values;
}

/** The first operand: the subcommand of programs like `docker`, `kubectl`, `systemctl`. */
export function subcommandOf(args: readonly string[]): string | undefined {
  return operandsOf(args)[0];
}
