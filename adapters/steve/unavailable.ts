import { BackendUnavailableError } from "../kit";
import { SteveRestError } from "./rest";

export const STEVE_DATABASE = "SteVe database";
export const STEVE_REST = "SteVe REST API";

/**
 * A driver or connection failure (mysql2 errors carry a `code`: ECONNREFUSED,
 * PROTOCOL_CONNECTION_LOST, ER_…; a refused pool connection may come as an
 * AggregateError), as opposed to a bug in the adapter, which must stay a 500.
 */
// By shape, not instanceof: a socket error is made by Node's own Error, which is not the Error of a jest sandbox.
const isDriverFailure = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (typeof (error as { code?: unknown }).code === "string" || Array.isArray((error as { errors?: unknown }).errors));

/** Runs a read of SteVe's database for a port: its outage becomes 503 + 3000 naming SteVe, never a stack or a password. */
export async function fromDatabase<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof BackendUnavailableError || isDriverFailure(error)) throw asUnavailable(error, STEVE_DATABASE);
    throw error;
  }
}

/** Runs a call of SteVe's REST API for a port: any failure of it becomes 503 + 3000 naming SteVe's API. */
export async function fromRest<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SteveRestError) throw asUnavailable(error, STEVE_REST);
    throw error;
  }
}

const asUnavailable = (error: unknown, backend: string): BackendUnavailableError =>
  error instanceof BackendUnavailableError ? error : new BackendUnavailableError(backend);
