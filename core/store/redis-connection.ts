import type { Socket } from "node:net";
import { Cluster, Redis, type RedisOptions } from "ioredis";

/** One Redis server by URL, or a Redis Cluster by some of its nodes' URLs (the rest are discovered). */
export type RedisTarget = { url: string } | { nodes: string[] };

export interface RedisClientOptions {
  /** a command without an answer after this long fails (a connection that hangs instead of closing) */
  commandTimeoutMs: number;
  connectTimeoutMs?: number;
  maxReconnectDelayMs?: number;
}

export type RedisClient = Redis | Cluster;

/**
 * A client that fails fast while its server is unreachable: commands are not
 * queued while disconnected, those in flight fail when the connection closes
 * (no resend after a reconnect that may come minutes later), and every command
 * has a timeout. ioredis keeps reconnecting in the background, so the client
 * recovers by itself once the server is back.
 */
export function createRedisClient(target: RedisTarget, options: RedisClientOptions): RedisClient {
  const maxReconnectDelayMs = options.maxReconnectDelayMs ?? 1000;
  const connection: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, maxReconnectDelayMs),
  };
  if ("url" in target) return coalescingWrites(new Redis(target.url, connection));
  const seeds = target.nodes.map((url) => new URL(url));
  // Every node of a cluster shares the credentials and the scheme of the seeds.
  const first = seeds[0];
  const cluster = new Cluster(
    seeds.map((u) => ({ host: u.hostname, port: Number(u.port || 6379) })),
    {
      enableOfflineQueue: false,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 100, maxReconnectDelayMs),
      redisOptions: {
        ...connection,
        username: first.username ? decodeURIComponent(first.username) : undefined,
        password: first.password ? decodeURIComponent(first.password) : undefined,
        tls: first.protocol === "rediss:" ? {} : undefined,
      },
    },
  );
  cluster.on("+node", (node: Redis) => coalescingWrites(node));
  return cluster;
}

/**
 * The commands a connection is given in one turn of the event loop leave in one write: ioredis writes each
 * command to the socket by itself, a system call each (`writeUtf8String`, a fifth of the push fan-out's CPU
 * on Redis in bench/RESULTS.md). The socket is corked at a turn's first command and uncorked in the check
 * phase of that turn, after the I/O callbacks that issued them, so a batch of commands is one `writev`; the
 * order of the commands, and so of Redis's answers, is unchanged. Applied to each new connection's socket.
 */
function coalescingWrites(client: Redis): Redis {
  client.on("connect", () => {
    const stream = (client as unknown as { stream: Socket }).stream;
    const write = stream.write;
    let corked = false;
    const uncork = () => {
      corked = false;
      stream.uncork();
    };
    stream.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
      if (!corked) {
        corked = true;
        stream.cork();
        setImmediate(uncork);
      }
      return write.apply(this, args);
    } as Socket["write"];
  });
  return client;
}

/** Resolves once the client is ready; rejects when it is not within `timeoutMs` (the last connection error named). */
export function whenReady(client: RedisClient, timeoutMs: number, lastError: () => Error | undefined): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      const cause = lastError() ? `: ${lastError()!.message}` : "";
      reject(new Error(`Redis not ready within ${timeoutMs} ms${cause}`));
    }, timeoutMs);
    client.once("ready", onReady);
  });
}

const OUTAGE_MESSAGES = [
  /^Connection is closed/,
  /^Command timed out/,
  /^Stream isn't writeable/,
  /^Cluster isn't ready/,
  /^Too many Cluster redirections/,
  /^Failed to refresh slots cache/,
  /^None of startup nodes is available/,
  /^Command aborted due to connection close/,
  // server replies that mean "not now": failover, cluster down, a server still loading its data, or busy
  /^(CLUSTERDOWN|TRYAGAIN|LOADING|MASTERDOWN|READONLY|NOREPLICAS|BUSY) /,
  // a slot still moving after the redirections ioredis follows itself
  /^(MOVED|ASK) /,
];
const OUTAGE_NAMES = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError", "AbortError"]);
const OUTAGE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/** True for failures of the connection or the server's availability, as opposed to a bad command or script (a bug). */
export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    OUTAGE_NAMES.has(error.name) ||
    (code !== undefined && OUTAGE_CODES.has(code)) ||
    OUTAGE_MESSAGES.some((re) => re.test(error.message))
  );
}
