export { tmsAdapterFactory } from "./factory";
