/** What an adapter's inbound route is handed: the body exactly as it came (a signature is over these bytes) and the headers. */
export interface InboundRequest {
  rawBody: Buffer;
  /** lower-case names */
  headers: Readonly<Record<string, string | undefined>>;
}

/** The answer, enveloped by the host: 1000 for a 2xx, else 2000 (4xx) or 3000 (5xx) with the message. */
export interface InboundReply {
  httpStatus: number;
  message?: string;
}

/**
 * A route a backend calls on its adapter (a webhook), mounted at
 * `/adapters/<adapter name><path>`. Outside the OCPI tree and the admin
 * API: the adapter authenticates the caller itself (a signature, a secret).
 */
export interface InboundRoute {
  method: "POST";
  /** below the adapter's base, e.g. "/webhook" */
  path: string;
  handle(request: InboundRequest): Promise<InboundReply>;
}
