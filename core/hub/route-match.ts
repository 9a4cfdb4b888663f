import type { RouteSpec } from "../contract/module-plugin";
import type { VersionNumber } from "../protocol/types";

/** A plugin route a path below a module interface matches, with its parameters. */
export interface MatchedRoute {
  route: RouteSpec;
  params: Record<string, string>;
}

/**
 * The plugin route (of a module interface's routes) that `method` and `rest`
 * (the path below the module URL) match in `version`: a hub reads bodies
 * and answers with its object types without serving the module itself.
 */
export const matchRoute = (routes: readonly RouteSpec[], method: string, version: VersionNumber, rest: string): MatchedRoute | undefined => {
  const segments = rest.split("/").filter(Boolean);
  for (const route of routes) {
    if (route.method !== method) continue;
    if (route.versions && !route.versions.includes(version)) continue;
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      if (part.startsWith(":")) {
        params[part.slice(1)] = decodeURIComponent(segments[i]);
        return true;
      }
      return part === segments[i];
    });
    if (matches) return { route, params };
  }
  return undefined;
};
