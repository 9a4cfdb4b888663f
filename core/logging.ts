import pino, { type Logger } from "pino";

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
    },
    destination,
  );
