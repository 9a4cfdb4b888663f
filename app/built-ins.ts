import type { InjectionToken } from "tsyringe";
import type { AdapterFactory, ModulePlugin } from "../core/plugin";
import { CredentialsPlugin } from "../plugins/credentials/module";

/** Module plugins shipped with the gateway; a new module is added here. */
export const BUILT_IN_PLUGINS: InjectionToken<ModulePlugin>[] = [CredentialsPlugin];

/** Adapter types shipped with the gateway, selected by `modules.<id>.adapter` / `adapters.<name>.type`. */
export const BUILT_IN_ADAPTERS: AdapterFactory[] = [];
