import { request } from "undici";
import type { TokenEncoding } from "../../config/types";
import { suggestedPartnerYaml } from "./suggested-partner";
import type { ObjectType } from "../../core/contract/object-type";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { describeIssues } from "../../core/contract/errors";
import { ListWalk, type PageHeaders } from "../../core/client/next-page";
import { SUPPORTED_VERSIONS, compareVersions, type VersionNumber } from "../../core/protocol/types";
import { locationType } from "../../plugins/locations/translate";
import { tariffType } from "../../plugins/tariffs/translate";
import { tokenObjectType } from "../../plugins/tokens/translate";
import { sessionType } from "../../plugins/sessions/translate";
import { cdrType } from "../../plugins/cdrs/translate";

/**
 * `ocpi-gateway probe <versions_url> --token <token>`: checks a partner's
 * OCPI implementation before it goes live, with only GETs (nothing is
 * written at the partner), and says which per-partner settings would make
 * this gateway work with it. Token A reaches versions and details only;
 * the token a registration gave us (C) reaches the modules too.
 */

export type Outcome = "pass" | "fail" | "warn" | "skip";

export interface ProbeCheck {
  outcome: Outcome;
  /** what was checked, e.g. "versions", "locations SENDER: pagination" */
  check: string;
  detail: string;
}

export interface ProbeReport {
  versionsUrl: string;
  version?: VersionNumber;
  checks: ProbeCheck[];
  /** what departs from the spec, in words */
  quirks: string[];
  /** the partner entry that would make this gateway work with it (YAML) */
  suggestedConfig: string;
  /** the partner's clock minus ours, in ms, from its envelopes' timestamps (mean) */
  clockOffsetMs?: number;
  passed: boolean;
}

export interface ProbeOptions {
  timeoutMs?: number;
  /** pages followed per list at most, so a Link loop cannot hold the probe */
  maxPages?: number;
}

/** Objects per module: read with the gateway's own schemas, to say whether `strictness: reject` would take them. */
const OBJECT_TYPES: Record<string, ObjectType<any>> = {
  locations: locationType,
  tariffs: tariffType,
  tokens: tokenObjectType,
  sessions: sessionType,
  cdrs: cdrType,
};
/** lists that require date_from */
const NEEDS_DATE_FROM = new Set(["sessions", "cdrs"]);
const CLOCK_TOLERANCE_MS = 30_000;
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json?: any;
  /** our clock at the middle of the call */
  at: number;
}

type Encoding = "base64" | "raw";

class Probe {
  readonly checks: ProbeCheck[] = [];
  readonly quirks = new Set<string>();
  private readonly offsets: number[] = [];
  private encoding: Encoding = "base64";
  private invalidObjects = false;
  private pageCap?: number;

  constructor(
    private readonly token: string,
    private readonly options: Required<ProbeOptions>,
  ) {}

  record(outcome: Outcome, check: string, detail: string): void {
    this.checks.push({ outcome, check, detail });
  }

  async get(url: string, encoding: Encoding = this.encoding): Promise<Answer> {
    const value = encoding === "base64" ? Buffer.from(this.token, "utf8").toString("base64") : this.token;
    const started = Date.now();
    const response = await request(url, {
      method: "GET",
      headers: { Authorization: `Token ${value}`, Accept: "application/json", "X-Request-ID": `probe-${started}`, "X-Correlation-ID": `probe-${started}` },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    const text = await response.body.text();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, headers, text, json, at: (started + Date.now()) / 2 };
  }

  /** Checks the envelope of an answer; returns whether it is one. */
  envelope(what: string, answer: Answer): boolean {
    const env = answer.json;
    if (typeof env !== "object" || env === null || typeof env.status_code !== "number") {
      this.record("fail", `${what}: envelope`, `HTTP ${answer.status} without an OCPI envelope: ${answer.text.replace(/\s+/g, " ").slice(0, 120)}`);
      this.quirks.add(`${what} answers without an OCPI envelope`);
      return false;
    }
    const problems: string[] = [];
    if (typeof env.timestamp !== "string") problems.push("no timestamp");
    else if (!UTC.test(env.timestamp)) {
      problems.push(`timestamp ${env.timestamp} is not UTC (…Z)`);
      this.quirks.add("timestamps are not written in UTC with Z");
    }
    const parsed = typeof env.timestamp === "string" ? Date.parse(env.timestamp) : NaN;
    if (!Number.isNaN(parsed)) this.offsets.push(parsed - answer.at);
    if (env.status_message !== undefined && typeof env.status_message !== "string") problems.push("status_message is not a string");
    if (problems.length) this.record("warn", `${what}: envelope`, problems.join("; "));
    return true;
  }

  clockOffset(): number | undefined {
    return this.offsets.length ? Math.round(this.offsets.reduce((a, b) => a + b, 0) / this.offsets.length) : undefined;
  }

  readObjects(what: string, module: string, version: VersionNumber, items: unknown[]): void {
    const type = OBJECT_TYPES[module];
    if (!type) return;
    const schema = type.schema(version, "full");
    const invalid: string[] = [];
    let notUtc = 0;
    for (const item of items) {
      const stamp = (item as { last_updated?: unknown })?.last_updated;
      if (typeof stamp === "string" && !UTC.test(stamp)) notUtc++;
      const result = schema.safeParse(withoutNulls(item));
      if (!result.success) invalid.push(describeIssues(issuesOf(result.error)).slice(0, 200));
    }
    if (notUtc) {
      this.record("warn", `${what}: timestamps`, `${notUtc} of ${items.length} objects' last_updated not in UTC (…Z)`);
      this.quirks.add("timestamps are not written in UTC with Z");
    } else if (items.length) this.record("pass", `${what}: timestamps`, "last_updated in UTC");
    if (invalid.length) {
      this.invalidObjects = true;
      this.record("fail", `${what}: objects`, `${invalid.length} of ${items.length} invalid for ${version}, e.g. ${invalid[0]}`);
      this.quirks.add(`${module}: objects off the ${version} schema`);
    } else if (items.length) this.record("pass", `${what}: objects`, `${items.length} valid ${version} objects`);
  }

  async run(versionsUrl: string): Promise<VersionNumber | undefined> {
    // 1. versions, with both token encodings
    const tried: Partial<Record<Encoding, Answer>> = {};
    for (const encoding of ["base64", "raw"] as Encoding[]) {
      try {
        tried[encoding] = await this.get(versionsUrl, encoding);
      } catch (error) {
        this.record("fail", "versions: reachable", `GET ${versionsUrl} failed: ${(error as Error).message}`);
        return undefined;
      }
    }
    const accepted = (Object.keys(tried) as Encoding[]).filter((e) => tried[e]!.status === 200 && tried[e]!.json?.status_code === 1000);
    if (accepted.length === 0) {
      this.record("fail", "versions: token", `the token is refused in both encodings (HTTP ${tried.base64!.status} / ${tried.raw!.status})`);
      return undefined;
    }
    this.encoding = accepted[0];
    this.record("pass", "versions: token encodings", `accepted: ${accepted.join(" and ")}`);
    const versions = tried[this.encoding]!;
    if (!this.envelope("versions", versions)) return undefined;
    const offered = (Array.isArray(versions.json.data) ? versions.json.data : []).filter(
      (v: any) => typeof v?.version === "string" && typeof v?.url === "string",
    ) as { version: string; url: string }[];
    if (!Array.isArray(versions.json.data) || offered.length !== versions.json.data.length) {
      this.record("fail", "versions: well-formed", "data must be a list of { version, url }");
    } else this.record("pass", "versions: well-formed", `offers ${offered.map((v) => v.version).join(", ")}`);
    const mutual = SUPPORTED_VERSIONS.filter((v) => offered.some((o) => o.version === v)).sort(compareVersions).reverse();
    const version = mutual[0];
    if (!version) {
      this.record("fail", "versions: mutual version", `none of ${offered.map((v) => v.version).join(", ") || "nothing"} is one we speak (${SUPPORTED_VERSIONS.join(", ")})`);
      return undefined;
    }
    this.record("pass", "versions: mutual version", version);

    // 2. version details
    const details = await this.get(offered.find((o) => o.version === version)!.url);
    if (details.status !== 200 || !this.envelope("version details", details)) {
      if (details.status !== 200) this.record("fail", "version details: reachable", `HTTP ${details.status}`);
      return version;
    }
    const endpoints = (Array.isArray(details.json.data?.endpoints) ? details.json.data.endpoints : []) as { identifier?: string; role?: string; url?: string }[];
    const malformed = endpoints.filter((e) => typeof e.identifier !== "string" || typeof e.url !== "string" || (version !== "2.1.1" && e.role !== "SENDER" && e.role !== "RECEIVER"));
    if (details.json.data?.version !== version) this.record("warn", "version details: well-formed", `data.version is ${JSON.stringify(details.json.data?.version)}, not ${version}`);
    if (malformed.length || endpoints.length === 0) this.record("fail", "version details: well-formed", `${malformed.length} malformed of ${endpoints.length} endpoints`);
    else this.record("pass", "version details: well-formed", endpoints.map((e) => `${e.identifier}${e.role ? ` ${e.role}` : ""}`).join(", "));

    // 3. every advertised module, in its role
    for (const endpoint of endpoints.filter((e) => !malformed.includes(e))) {
      if (endpoint.identifier === "credentials") continue;
      const role = endpoint.role ?? "SENDER";
      const what = `${endpoint.identifier} ${role}`;
      if (role === "SENDER" && OBJECT_TYPES[endpoint.identifier!]) await this.senderList(what, endpoint.identifier!, endpoint.url!, version, accepted);
      else await this.answers(what, role === "RECEIVER" ? `${endpoint.url!.replace(/\/+$/, "")}/XX/XXX/ocpi-probe-unknown` : endpoint.url!);
    }
    return version;
  }

  /** An endpoint we can only ask harmlessly: it must answer with an envelope (any status). */
  private async answers(what: string, url: string): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.get(url);
    } catch (error) {
      this.record("fail", `${what}: answers`, (error as Error).message);
      return;
    }
    if (answer.status === 401) return this.record("skip", `${what}: answers`, "HTTP 401: this token does not reach the modules (token A?)");
    if (this.envelope(what, answer)) this.record("pass", `${what}: answers`, `HTTP ${answer.status}, status_code ${answer.json.status_code}`);
  }

  /** A Sender list: the first page, pagination headers, the limit cap and a Link walk that ends. */
  private async senderList(what: string, module: string, url: string, version: VersionNumber, accepted: Encoding[]): Promise<void> {
    const first = new URL(url);
    if (NEEDS_DATE_FROM.has(module)) first.searchParams.set("date_from", "1970-01-01T00:00:00Z");
    first.searchParams.set("limit", "10000");
    let answer: Answer;
    try {
      answer = await this.get(first.toString());
    } catch (error) {
      this.record("fail", `${what}: answers`, (error as Error).message);
      return;
    }
    if (answer.status === 401 && accepted.length > 1) {
      const other = await this.get(first.toString(), this.encoding === "base64" ? "raw" : "base64");
      if (other.status === 200) {
        this.quirks.add(`modules take the token only ${this.encoding === "base64" ? "raw" : "Base64-encoded"}`);
        this.encoding = this.encoding === "base64" ? "raw" : "base64";
        answer = other;
      }
    }
    if (answer.status === 401) return this.record("skip", `${what}: answers`, "HTTP 401: this token does not reach the modules (token A?)");
    if (!this.envelope(what, answer)) return;
    if (answer.status !== 200 || answer.json.status_code !== 1000 || !Array.isArray(answer.json.data))
      return this.record("fail", `${what}: answers`, `HTTP ${answer.status}, status_code ${answer.json.status_code}, data ${Array.isArray(answer.json.data) ? "a list" : "not a list"}`);
    this.record("pass", `${what}: answers`, `a page of ${answer.json.data.length}`);

    const total = Number(answer.headers["x-total-count"]);
    const limit = Number(answer.headers["x-limit"]);
    const missing = [!("x-total-count" in answer.headers) && "X-Total-Count", !("x-limit" in answer.headers) && "X-Limit"].filter(Boolean);
    if (missing.length) {
      this.record("fail", `${what}: pagination headers`, `missing ${missing.join(" and ")}`);
      this.quirks.add(`${module}: lists lack ${missing.join(" and ")}`);
    } else this.record("pass", `${what}: pagination headers`, `X-Total-Count ${total}, X-Limit ${limit}`);
    if (Number.isFinite(limit) && limit > 0) {
      if (answer.json.data.length > limit) this.record("fail", `${what}: limit cap`, `a page of ${answer.json.data.length} over its X-Limit ${limit}`);
      else this.record("pass", `${what}: limit cap`, `asked 10000, got at most ${limit}`);
      this.pageCap = Math.min(this.pageCap ?? Infinity, limit);
    }

    // the walk, as a sync pull walks it (core/client/next-page.ts): Links, and offset where a page sends no Link
    const items: unknown[] = [];
    const walk = new ListWalk(first.toString(), undefined, what);
    let page = walk.next()!;
    let capped = false;
    let unlinked: { page: number; count: number; read: number; total: number } | undefined;
    let pullFails: string | undefined;
    for (;;) {
      try {
        walk.read(page, pageHeaders(answer), answer.json.data[0]);
      } catch (error) {
        pullFails = (error as Error).message;
        break;
      }
      items.push(...answer.json.data);
      if (walk.pages >= this.options.maxPages) {
        capped = walk.more;
        break;
      }
      const next = walk.next();
      if (!next) break;
      if (next.by === "offset") unlinked ??= { page: walk.pages, count: answer.json.data.length, read: walk.objects, total: Number(answer.headers["x-total-count"]) };
      answer = await this.get(next.url);
      if (!this.envelope(`${what} page ${walk.pages + 1}`, answer) || !Array.isArray(answer.json.data)) break;
      page = next;
    }
    if (unlinked) {
      const { page: n, count, read, total } = unlinked;
      const copes = pullFails
        ? `our sync pull asks on with offset=${read}, but the partner answers it with the page already read: the pull fails (its watermark stays) and cannot reach the other ${total - read}`
        : `our sync pull asks on with offset=${read} (tolerant reader) and reads all ${walk.objects}`;
      this.record(
        "fail",
        `${what}: Link to the next page`,
        `page ${n} holds ${count} objects (${read} read) of X-Total-Count ${total} and sends no Link rel="next", which OCPI 2.2.1 Transport and format, Pagination requires while more objects remain: a client following Links loses ${total - read}; ${copes}`,
      );
      this.quirks.add(`${module}: pages with more objects after them send no Link rel="next"${pullFails ? ", and offset is ignored" : ""}`);
    }
    if (walk.looped || capped) {
      this.record("fail", `${what}: Link walk`, walk.looped ? `page ${walk.pages + 1} links back to a page already read` : `still linking on after ${walk.pages} pages`);
      this.quirks.add(`${module}: the Link walk does not end`);
    } else if (Number.isFinite(total) && items.length !== total) {
      this.record("warn", `${what}: Link walk`, `ended after ${walk.pages} page${walk.pages === 1 ? "" : "s"} with ${items.length} objects; X-Total-Count said ${total}`);
    } else this.record("pass", `${what}: Link walk`, `ended after ${walk.pages} page${walk.pages === 1 ? "" : "s"}, ${items.length} objects`);
    this.readObjects(what, module, version, items);
  }

  suggestion(versionsUrl: string, version: VersionNumber | undefined, accepted: TokenEncoding): string {
    return suggestedPartnerYaml({ versionsUrl, version, tokenEncoding: accepted, invalidObjects: this.invalidObjects, pageCap: this.pageCap });
  }

  acceptedEncodings(): TokenEncoding | "" {
    return this.quirks.has("modules take the token only raw") ? "raw" : this.quirks.has("modules take the token only Base64-encoded") ? "base64" : "";
  }
}

/** What a page of a Sender list says about the pages after it. */
const pageHeaders = (answer: Answer): PageHeaders => ({
  link: answer.headers.link,
  total: answer.headers["x-total-count"],
  xLimit: answer.headers["x-limit"],
  count: answer.json.data.length,
});

export const probePartner = async (versionsUrl: string, token: string, options: ProbeOptions = {}): Promise<ProbeReport> => {
  const probe = new Probe(token, { timeoutMs: options.timeoutMs ?? 10_000, maxPages: options.maxPages ?? 50 });
  let version: VersionNumber | undefined;
  try {
    version = await probe.run(versionsUrl);
  } catch (error) {
    probe.record("fail", "probe", (error as Error).message);
  }
  const offset = probe.clockOffset();
  if (offset !== undefined) {
    if (Math.abs(offset) > CLOCK_TOLERANCE_MS) {
      probe.record("warn", "clock", `its clock is ${Math.round(offset / 1000)} s off ours: sync watermarks overlap by partners[].sync_overlap_seconds`);
      probe.quirks.add(`clock ${Math.round(offset / 1000)} s off`);
    } else probe.record("pass", "clock", `offset ${offset} ms (within ${CLOCK_TOLERANCE_MS / 1000} s)`);
  }
  const encodings = probe.checks.find((c) => c.check === "versions: token encodings")?.detail ?? "";
  const accepted: TokenEncoding = probe.acceptedEncodings() || (encodings.includes(" and ") ? "auto" : encodings.includes("raw") ? "raw" : "base64");
  if (accepted === "raw" && !probe.quirks.has("modules take the token only raw")) probe.quirks.add("the token is taken only raw (not Base64, as 2.2+ asks)");
  return {
    versionsUrl,
    version,
    checks: probe.checks,
    quirks: [...probe.quirks],
    suggestedConfig: probe.suggestion(versionsUrl, version, accepted),
    clockOffsetMs: offset,
    passed: !probe.checks.some((c) => c.outcome === "fail"),
  };
};

const MARK: Record<Outcome, string> = { pass: "PASS", fail: "FAIL", warn: "WARN", skip: "SKIP" };

/** The report as the operator reads it. */
export const formatReport = (report: ProbeReport): string => {
  const count = (o: Outcome) => report.checks.filter((c) => c.outcome === o).length;
  return [
    `ocpi-gateway probe ${report.versionsUrl}${report.version ? ` (OCPI ${report.version})` : ""}`,
    "",
    ...report.checks.map((c) => `${MARK[c.outcome]}  ${c.check}: ${c.detail}`),
    "",
    report.quirks.length ? "Quirks found:" : "Quirks found: none",
    ...report.quirks.map((q) => `  - ${q}`),
    "",
    "Suggested partner config:",
    ...report.suggestedConfig.split("\n").map((l) => `  ${l}`),
    "",
    `${report.passed ? "PASSED" : "FAILED"}: ${count("pass")} passed, ${count("fail")} failed, ${count("warn")} warnings, ${count("skip")} skipped`,
  ].join("\n");
};
