import type { InterfaceRole, ModuleId, VersionNumber } from "../protocol/types";

/** Every URL the gateway advertises, built on server.public_url, and the router paths they map to. */
export const ROUTE_ROOT = "/ocpi";

export const versionsPath = (): string => `${ROUTE_ROOT}/versions`;
export const versionDetailsPath = (version: VersionNumber): string => `${ROUTE_ROOT}/${version}`;

/**
 * Sender and receiver interfaces of one module get different URLs: their
 * path shapes overlap (GET /locations/{a}/{b}/{c} exists on both).
 */
export const modulePath = (version: VersionNumber, module: ModuleId, role: InterfaceRole, configurationModule = false): string =>
  configurationModule ? `${ROUTE_ROOT}/${version}/${module}` : `${ROUTE_ROOT}/${version}/${role.toLowerCase()}/${module}`;

export const absolute = (publicUrl: string, path: string): string => `${publicUrl}${path}`;
