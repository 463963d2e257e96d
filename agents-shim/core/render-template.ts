/**
 * Fills a shell template's `@AOB_NAME@` placeholders. Every placeholder in the templates sits inside
 * single quotes (or in a comment), so a value is safe once its own single quotes are escaped the
 * POSIX way ('\''); newlines and NULs are refused, and so is any placeholder left unfilled, so an
 * installed script can never carry a literal `@AOB_…@` or a broken quote.
 */
export function renderTemplate(template: string, values: Readonly<Record<string, string>>): string {
  const text = template.replace(/@AOB_([A-Z_]+)@/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template placeholder ${whole} has no value`);
    if (/[\n\r\0]/.test(value)) throw new Error(`template value for ${whole} contains a newline or NUL`);
    return value.replace(/'/g, "'\\''");
  });
  return text;
}

/** The placeholders a template uses, for checks and tests. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(/@AOB_([A-Z_]+)@/g)].map((m) => m[1] as string))].sort();
}
