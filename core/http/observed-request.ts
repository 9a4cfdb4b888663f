/** One request as the access log saw it; what the metrics count (core/metrics). */
export interface ObservedRequest {
  /** the authenticated partner, or undefined (no or unknown token) */
  partner?: string;
  module: string;
  interface?: string;
  method: string;
  httpStatus: number;
  /** the envelope's status_code, when the answer was an envelope */
  statusCode?: number;
  seconds: number;
}
