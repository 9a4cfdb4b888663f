import path from "node:path";

/** The spec's example payloads the tests use, vendored verbatim (test/fixtures/ocpi-examples/NOTICE.md: source, licence, defects). */
export const EXAMPLES = path.resolve(__dirname, "../fixtures/ocpi-examples");
