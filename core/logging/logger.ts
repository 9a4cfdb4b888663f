import pino, { type Logger } from "pino";
import { currentRequest } from "../http/request-scope";

/**
 * Structured logs. Authorization headers and credential tokens are redacted
 * by path as a second line of defence: the code never passes a token to the
 * logger in the first place.
 */
export const createLogger = (level: string, destination?: pino.DestinationStream): Logger =>
  pino(
    {
      level,
      redact: {
        paths: ["authorization", "*.authorization", "headers.authorization", "token", "*.token", "token_a", "*.token_a"],
        censor: "***",
      },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: requestFields,
    },
    destination,
  );

/**
 * The fields of the request being served (partner, module, X-Request-ID,
 * X-Correlation-ID) on every line written while it is served, whichever
 * logger writes it; a field the line or its child logger already names is
 * left to them.
 */
const requestFields = (line: object, _level: number, logger: Logger): object => {
  const request = currentRequest();
  if (!request) return {};
  const fields: Record<string, string> = {};
  const bound = logger.bindings();
  for (const key of ["partner", "module", "requestId", "correlationId"] as const) {
    const value = request[key];
    if (value !== undefined && !(key in line) && !(key in bound)) fields[key] = value;
  }
  return fields;
};
