/** At most this many characters of a partner's own words are kept (logs, `last_error`, dead letters). */
const EXCERPT_CHARS = 300;
/** Scrubbing reads this far, well past the cut, so a secret straddling the cut is replaced whole before it. */
const SCAN_CHARS = 4096;
/** an Authorization value written anywhere in the answer (a partner echoing a request back); short words ("Token expired") stay */
const CREDENTIAL = /\b(Token|Bearer|Basic)(\s+)[A-Za-z0-9+/=._~-]{12,}/gi;

/**
 * What a partner said, fit for records: the start of its answer (an HTML
 * error page, a framework's 422 body, a status_message), whitespace
 * collapsed, with `token` (the one we called it with, raw and Base64) and
 * anything written like an Authorization value replaced.
 */
export const answerExcerpt = (text: string | undefined, token: string): string | undefined => {
  if (!text) return undefined;
  let scan = text.slice(0, SCAN_CHARS);
  for (const form of [token, Buffer.from(token, "utf8").toString("base64")]) if (form) scan = scan.split(form).join("[token]");
  scan = scan.replace(CREDENTIAL, "$1$2[redacted]").replace(/\s+/g, " ").trim();
  return scan.length > EXCERPT_CHARS ? `${scan.slice(0, EXCERPT_CHARS)}…` : scan;
};
