import type { Logger } from "pino";
import { createLogger } from "../../core/logging/logger";

/** Every form a secret may take on the wire: as given, and Base64 as 2.2+ Authorization headers carry it. */
export const secretForms = (secret: string): string[] => [secret, Buffer.from(secret).toString("base64")];

export interface LogCapture {
  /** a logger built like the product's (core/logging/logger.ts, redaction included) writing into memory; pass it to Gateway.create(config, { logger }) */
  logger: Logger;
  /** the captured lines, as written */
  lines: string[];
  /** remembers a secret the test used (token A, an issued token, the admin token); its Base64 form is watched too */
  watch(...secrets: (string | undefined)[]): void;
  /** the watched secrets found in the captured text, each with the first line it appears in (empty: none leaked) */
  leaks(): { secret: string; line: string }[];
}

/**
 * Captures a gateway's logs at `debug` level so a test can prove that no
 * secret it used ever reached a log line. Call it once per test file:
 *
 *   const logs = captureLogs();
 *   const gateway = await Gateway.create(config, { logger: logs.logger });
 *   logs.watch(tokenA, issuedToken, ADMIN_TOKEN);
 *   …
 *   afterAll(() => expect(logs.leaks()).toEqual([]));
 */
export const captureLogs = (level = "debug"): LogCapture => {
  const lines: string[] = [];
  const secrets = new Set<string>();
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    watch: (...given) => {
      // a very short value would match by chance; tokens are long
      for (const secret of given) if (secret && secret.length >= 8) for (const form of secretForms(secret)) secrets.add(form);
    },
    leaks: () => {
      const found: { secret: string; line: string }[] = [];
      for (const secret of secrets) {
        const line = lines.find((l) => l.includes(secret));
        // the report names the secret by its length and head only: the failure message is itself a log
        if (line) found.push({ secret: `${secret.slice(0, 4)}… (${secret.length} chars)`, line: line.slice(0, 300) });
      }
      return found;
    },
  };
};
