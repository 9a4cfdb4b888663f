export { proxyAdapterFactory } from "./factory";
