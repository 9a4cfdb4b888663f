import type { PartnerConfig, PartnerExtension } from "../../config/types";
import type { VersionNumber } from "../protocol/types";

/** The versions in which a module exists only through an extension of the protocol (ModulePlugin.extensionOnly). */
export type ExtensionOnly = Readonly<Partial<Record<VersionNumber, PartnerExtension>>>;

/**
 * Which modules a partner is offered in a version: the one rule of both the version details we list
 * (core/versions/endpoints.ts) and the requests we admit (core/edge/admit.ts: else 404), of whom we push to
 * (core/push/entitled-partners.ts) and what a hub lists as forwarded, so a partner never sees an endpoint it
 * cannot use nor uses one it was not shown. Each module declares the versions it has only through an extension
 * (the payments module is OCPI 2.3.0's, Part A; in 2.2.1 it exists for partners on the direct-payment
 * extension), learnt once the plugins are resolved (`know`). Configuration modules (versions, credentials)
 * are offered to every partner and are not asked about here.
 */
export class ModuleOffers {
  private extensions?: ReadonlyMap<string, ExtensionOnly>;

  /** What each module declares of itself; called once, by the composition root, before anything is offered. */
  know(modules: readonly { readonly module: string; readonly extensionOnly?: ExtensionOnly }[]): void {
    this.extensions = new Map(modules.map((m) => [m.module, m.extensionOnly ?? {}]));
  }

  /**
   * Whether `module` is offered to `partner` in `version`: allowed by `partners[].modules` (absent: every
   * module), and, where the version has the module only through an extension, the partner configured for it
   * (`partners[].extensions`). Asked before the modules are known, it throws rather than offer what an
   * extension might have withheld.
   */
  offers(partner: Pick<PartnerConfig, "modules" | "extensions"> | undefined, module: string, version: VersionNumber | undefined): boolean {
    if (!this.extensions) throw new Error("ModuleOffers asked before the modules were known");
    if (partner?.modules && !partner.modules.includes(module)) return false;
    const needs = version ? this.extensions.get(module)?.[version] : undefined;
    return !needs || (partner?.extensions?.includes(needs) ?? false);
  }
}
