/** OCPI status codes (OCPI 2.2.1 Status codes) and the HTTP status each is answered with by default. */
export const Status = {
  SUCCESS: 1000,
  CLIENT_ERROR: 2000,
  INVALID_PARAMETERS: 2001,
  NOT_ENOUGH_INFORMATION: 2002,
  UNKNOWN_LOCATION: 2003,
  UNKNOWN_TOKEN: 2004,
  SERVER_ERROR: 3000,
  CLIENT_API_UNREACHABLE: 3001,
  UNSUPPORTED_VERSION: 3002,
  NO_MATCHING_ENDPOINTS: 3003,
  HUB_ERROR: 4000,
  HUB_UNKNOWN_RECEIVER: 4001,
  HUB_TIMEOUT: 4002,
  HUB_CONNECTION_PROBLEM: 4003,
} as const;

export type StatusCode = (typeof Status)[keyof typeof Status];
