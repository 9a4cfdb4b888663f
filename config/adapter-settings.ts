import { z } from "zod";

/**
 * Setting rules every adapter's `adapters.<name>` block uses, handed to
 * adapters through the kit so a backend's URL, a timing and an error line
 * read the same in every adapter's `check-config` output.
 * Messages say what is expected and never echo the value (it may be a secret).
 */

/** An absolute http(s) URL with no user name or password in it (credentials are settings of their own). */
export const httpUrlSetting = (message: string) =>
  z.string({ error: message }).refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
    } catch {
      return false;
    }
  }, message);

/** A whole number of milliseconds in [min, max], `fallback` when left out. */
export const millisecondsSetting = (min: number, max: number, fallback: number) => {
  const message = `must be a whole number of milliseconds between ${min} and ${max}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message).default(fallback);
};

/** Every problem of a settings block as `path: message` lines under `base` (e.g. `adapters.tms`). */
export const settingsErrors = (error: z.ZodError, base: string): string[] =>
  error.issues.map((issue) =>
    issue.code === "unrecognized_keys" ? `${base}: unknown setting ${issue.keys.join(", ")}` : `${[base, ...issue.path.map(String)].join(".")}: ${issue.message}`,
  );
