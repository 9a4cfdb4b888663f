import { AsyncLocalStorage } from "node:async_hooks";
import { SUPPORTED_VERSIONS } from "../protocol/types";

/** What every log line written while a request is served carries (core/logging/logger.ts reads it). */
export interface RequestScope {
  requestId?: string;
  correlationId?: string;
  /** the authenticated partner, once authentication has run */
  partner?: string;
  /** the OCPI module the path names ("versions", "credentials", "locations"…), "admin", or undefined */
  module?: string;
  /** SENDER or RECEIVER when the path names an interface */
  interface?: string;
  /** the response went out: work the request started and that goes on (an outbox pass) no longer speaks for it */
  ended?: boolean;
}

/**
 * The request being served, for whatever runs on its behalf, however deep:
 * the logger adds its fields to every line (core/logging/logger.ts), so no code has
 * to hand a child logger down. Set by the access log (core/host/access-log.ts),
 * filled in by request ids and authentication as they run. Entered
 * through servedInScope.
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();

/** requests being served in requestScope (servedInScope) */
let inScope = 0;
/** the check that turns requestScope off once no request has been served in it for a while */
let idleCheck: NodeJS.Timeout | undefined;
/**
 * How long requestScope stays on after the last request served in it was
 * answered: it goes off and on at most this often (a few µs each time).
 * Shorter than the second for which a hub remembers a receiver's status
 * (core/hub/receiver-routes.ts), after which one forwarded GET is served in
 * requestScope to read it again.
 */
export const SCOPE_IDLE_MS = 100;

/**
 * Serves one request in requestScope: `serve` runs in `scope` and what it
 * awaits sees it, until the promise it returns settles (the request is
 * answered). Entering requestScope turns on node's async hooks for the
 * whole process (node 20: an init hook for every promise and async
 * resource, whichever request it belongs to); requestScope lets go of them
 * (AsyncLocalStorage.disable: off unless another AsyncLocalStorage holds
 * them) once no request has been served in it for SCOPE_IDLE_MS, so that a process whose requests are all synchronous
 * steps (requestStep: a hub's forwarded GETs) stops paying for them. What
 * a request left running after its answer loses its scope then, which
 * currentRequest already gives none (RequestScope.ended).
 */
export const servedInScope = <T>(scope: RequestScope, serve: () => Promise<T>): Promise<T> => {
  inScope++;
  let served: Promise<T>;
  try {
    served = requestScope.run(scope, serve);
  } catch (error) {
    leftScope();
    throw error;
  }
  return served.finally(leftScope);
};

const leftScope = (): void => {
  if (--inScope > 0 || idleCheck) return;
  idleCheck = setTimeout(() => {
    idleCheck = undefined;
    if (inScope === 0) requestScope.disable();
  }, SCOPE_IDLE_MS);
  idleCheck.unref();
};

/** the scope of the request whose synchronous step runs now (`requestStep`), before requestScope's */
let stepping: RequestScope | undefined;

/**
 * Runs one synchronous step of a request in its scope without entering
 * requestScope: for an entrance that serves a request without awaiting
 * anything on its behalf (the hub's forwarded GETs, core/host/forwarded-get.ts),
 * so that its requests pay nothing for entering requestScope nor, once no
 * request has been served in it for a while (servedInScope), for the async
 * hooks it turns on (a promise hook per promise, an init hook per async
 * resource). What
 * the step calls sees the scope
 * (currentRequest); what it leaves to run later does not: such an entrance
 * enters requestScope for any step that awaits.
 */
export const requestStep = <R>(scope: RequestScope, step: () => R): R => {
  const outer = stepping;
  stepping = scope;
  try {
    return step();
  } finally {
    stepping = outer;
  }
};

/** The current request's scope; undefined outside a request (background work started at start-up). */
export const currentRequest = (): RequestScope | undefined => {
  const scope = stepping ?? requestScope.getStore();
  return scope?.ended ? undefined : scope;
};

const VERSIONS = new Set<string>(SUPPORTED_VERSIONS);

/**
 * Module and interface named by a path of ours, for logs and metric labels.
 * Only names in `known` (served modules) are taken, so a client inventing
 * paths cannot create labels: anything else is "unknown".
 */
export const routeOfPath = (path: string, known: ReadonlySet<string>): { module: string; interface?: string } => {
  const parts = leadingSegments(path, 4);
  if (parts[0] === "admin") return { module: "admin" };
  if (parts[0] !== "ocpi") return { module: "other" };
  if (parts[1] === "versions" || (parts.length === 2 && VERSIONS.has(parts[1]))) return { module: "versions" };
  if (!VERSIONS.has(parts[1] ?? "")) return { module: "unknown" };
  const role = parts[2] === "sender" ? "SENDER" : parts[2] === "receiver" ? "RECEIVER" : undefined;
  const module = role ? parts[3] : parts[2];
  return module !== undefined && known.has(module) ? { module, interface: role } : { module: "unknown", interface: role };
};

/**
 * The first `count` non-empty segments of a path, as `path.split("/").filter(Boolean)` starts (a path of
 * fewer has fewer): routeOfPath looks at no more, and a write's path is longer (its object's ids).
 */
const leadingSegments = (path: string, count: number): string[] => {
  const segments: string[] = [];
  for (let at = 0; segments.length < count && at < path.length; ) {
    let end = path.indexOf("/", at);
    if (end < 0) end = path.length;
    if (end > at) segments.push(path.slice(at, end));
    at = end + 1;
  }
  return segments;
};
