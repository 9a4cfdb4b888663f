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

/**
 * The role a party of `role` declares in credentials. A payment-terminal
 * provider is not a value of the Role enum in any 2.3.0 branch (OCPI 2.3.0
 * Credentials, Role; Payments): a `PTP` party is OTHER there, in every
 * version, ours and partners' alike.
 */
export const credentialsRoleOf = (role: Role): Exclude<Role, "PTP"> => (role === "PTP" ? "OTHER" : role);

/** The two sides of a module interface (2.2+ endpoints name one; 2.1.1 lists one URL per module). */
export const INTERFACE_ROLES = ["SENDER", "RECEIVER"] as const;
export type InterfaceRole = (typeof INTERFACE_ROLES)[number];

/** The HTTP methods OCPI's interfaces use. */
export type HttpMethod = "GET" | "PUT" | "PATCH" | "POST" | "DELETE";
