/**
 * gh argv as it may be written to a trace row: Authorization headers, credential-like fields and
 * flag values, and anything token-shaped are replaced by [REDACTED]. AO's own tracer redacts
 * `-H Authorization: …` and `-f token=…/password=…/secret=…`; this covers those plus the
 * `--flag=value` spellings, `--password/--token/--secret <value>`, `gh secret set --body <value>`,
 * and registered secrets anywhere in any argument.
 *
 * Invariant: the result has the same length as the input (positions still line up with the
 * command the user typed), only values change.
 */
import { REDACTED, scrubText } from "./secret-scrub.js";

const HEADER_FLAGS = new Set(["-H", "--header"]);
const FIELD_FLAGS = new Set(["-f", "--raw-field", "-F", "--field"]);
const SECRET_VALUE_FLAGS = new Set(["--password", "--token", "--secret", "--client-secret"]);
/** Field names (left of `=`) whose value is a credential. */
const SECRET_FIELD = /token|password|passwd|secret|authorization|api[_-]?key|credential/i;
const AUTH_HEADER = /^\s*(authorization|proxy-authorization|cookie)\s*:/i;

function redactHeader(value: string): string {
  const match = AUTH_HEADER.exec(value);
  return match ? `${value.slice(0, value.indexOf(":") + 1)} ${REDACTED}` : value;
}

function redactField(value: string): string {
  const eq = value.indexOf("=");
  if (eq <= 0) return value;
  return SECRET_FIELD.test(value.slice(0, eq)) ? `${value.slice(0, eq + 1)}${REDACTED}` : value;
}

function redactOne(arg: string, previous: string | undefined, secretCommand: boolean): string {
  if (previous !== undefined && HEADER_FLAGS.has(previous)) return redactHeader(arg);
  if (previous !== undefined && FIELD_FLAGS.has(previous)) return redactField(arg);
  if (previous !== undefined && SECRET_VALUE_FLAGS.has(previous)) return REDACTED;
  if (secretCommand && previous !== undefined && (previous === "-b" || previous === "--body"))
    return REDACTED;
  const eq = arg.indexOf("=");
  if (arg.startsWith("--") && eq > 2) {
    const flag = arg.slice(0, eq);
    const rest = arg.slice(eq + 1);
    if (HEADER_FLAGS.has(flag)) return `${flag}=${redactHeader(rest)}`;
    if (FIELD_FLAGS.has(flag)) return `${flag}=${redactField(rest)}`;
    if (SECRET_VALUE_FLAGS.has(flag) || (secretCommand && flag === "--body")) return `${flag}=${REDACTED}`;
  }
  // Attached short forms: -HAuthorization:…, -ftoken=…
  if (arg.startsWith("-H") && arg.length > 2 && !arg.startsWith("--"))
    return `-H${redactHeader(arg.slice(2))}`;
  if (/^-[fF][^-]/.test(arg)) return `${arg.slice(0, 2)}${redactField(arg.slice(2))}`;
  return arg;
}

/** `args` are the arguments after `gh`. */
export function redactArgs(args: readonly string[], secrets: readonly string[] = []): string[] {
  // `gh secret set NAME --body VALUE` and `gh variable set` carry the secret as a flag value.
  const secretCommand = args[0] === "secret";
  return args.map((arg, i) => scrubText(redactOne(arg, args[i - 1], secretCommand), secrets));
}
