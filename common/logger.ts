/**
 * One root pino logger per process, a child per component. Two layers keep secrets out of logs:
 * `redact` removes the usual places (Authorization headers, *.token, the config's PAT) and a
 * last-line scrubber replaces any registered secret string wherever it ended up in a line. The
 * scrubber exists because a secret can arrive inside an arbitrary string (an upstream error
 * message, a URL) where no path-based redaction can see it.
 */
import { createRequire } from "node:module";
import type { DestinationStream, Logger } from "pino";

export type { Logger };

// pino is loaded on first use, not at import: the IPC client (and so the gh shim's Node path)
// imports common/ for AoError, and pino's load time would otherwise be paid on every gh call.
type Pino = typeof import("pino");
let pinoModule: Pino | undefined;
function loadPino(): Pino {
  pinoModule ??= createRequire(import.meta.url)("pino") as Pino;
  return pinoModule;
}

const REDACT_PATHS = [
  "req.headers.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "authorization",
  "token",
  "*.token",
  "pat",
  "*.pat",
  "config.github.token",
  "github.token",
];

export interface LoggerOptions {
  /** @defaultValue "info" (or LOG_LEVEL) */
  readonly level?: string;
  /** Strings that must never appear in output, checked at write time (the PAT, webhook secret). */
  readonly secrets?: () => readonly string[];
  /** Where lines go. @defaultValue stderr */
  readonly destination?: DestinationStream;
  readonly name?: string;
}

export function scrubSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join("[REDACTED]");
  }
  return out;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = options.secrets ?? (() => []);
  const { pino } = loadPino();
  return pino(
    {
      name: options.name ?? "ao-broker",
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
      hooks: { streamWrite: (line) => scrubSecrets(line, secrets()) },
      serializers: {
        err: pino.stdSerializers.err,
        // Requests are logged as method + url only: headers carry tokens.
        req: (req: { method?: string; url?: string }) => ({ method: req.method, url: req.url }),
      },
    },
    options.destination ?? pino.destination(2),
  );
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export function silentLogger(): Logger {
  return loadPino().pino({ level: "silent" });
}
