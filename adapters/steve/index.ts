/** The `steve` adapter (SteVe's database and REST API), as app/built-ins.ts lists it. */
export { steveAdapterFactory } from "./factory";
