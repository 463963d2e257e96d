/**
 * The helper's argument parsing, kept tiny on purpose (the helper must start fast, so no
 * commander): `<command> --name value ...`. Every flag takes a value (possibly empty, which the
 * shell passes for unset fields); unknown flags and a flag without a value are errors.
 */
export interface ParsedHelperArgs {
  readonly command: string;
  readonly flags: Readonly<Record<string, string>>;
}

export function parseHelperArgs(argv: readonly string[], allowed: readonly string[]): ParsedHelperArgs {
  const [command, ...rest] = argv;
  if (!command || command.startsWith("-")) throw new Error("expected a command first");
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i] ?? "";
    if (!name.startsWith("--")) throw new Error(`expected --flag, got "${name}"`);
    const key = name.slice(2);
    if (!allowed.includes(key)) throw new Error(`unknown flag ${name}`);
    const value = rest[i + 1];
    if (value === undefined) throw new Error(`${name} needs a value`);
    flags[key] = value;
  }
  return { command, flags };
}
