/**
 * The protocol's words that the config, the kernel and the plugins share.
 * Each value list is the one source of its type; config/ reads them from here.
 */

/** The OCPI versions this gateway speaks, newest first: the order version negotiation prefers. */
export const SUPPORTED_VERSIONS = ["2.3.0", "2.2.1", "2.1.1"] as const;
export type VersionNumber = (typeof SUPPORTED_VERSIONS)[number];

/** Party roles of the credentials object (2.1.1 up to 2.3.0; PTP is 2.3.0's payment-terminal provider). */
export const ROLES = ["CPO", "EMSP", "HUB", "NAP", "NSP", "OTHER", "SCSP", "PTP"] as const;
export type Role = (typeof ROLES)[number];

/** The two sides of a module interface (2.2+ endpoints name one; 2.1.1 lists one URL per module). */
export const INTERFACE_ROLES = ["SENDER", "RECEIVER"] as const;
export type InterfaceRole = (typeof INTERFACE_ROLES)[number];

/** The HTTP methods OCPI's interfaces use. */
export type HttpMethod = "GET" | "PUT" | "PATCH" | "POST" | "DELETE";
