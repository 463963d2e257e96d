export { AoError, type AoErrorOptions, isAoError } from "./ao-error.js";
export { type CommonErrorCode, CommonErrors } from "./errors.js";
export { createLogger, type Logger, type LoggerOptions, scrubSecrets, silentLogger } from "./logger.js";
