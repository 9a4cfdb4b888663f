/** tsyringe injection tokens for things that are not classes. */
export const TOKENS = {
  Config: Symbol("GatewayConfig"),
  Store: Symbol("Store"),
  Logger: Symbol("Logger"),
  ModulePlugin: Symbol("ModulePlugin"),
  AdapterFactory: Symbol("AdapterFactory"),
} as const;
