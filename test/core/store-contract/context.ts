/** What the rules of the Store contract (test/core/store-contract/contract.ts) share: the store under test and helpers. */
import type { Store } from "../../../core/contract/store";
export interface Doc {
  id: string;
  n: number;
}

export interface StoreFactory {
  /** opens a store; every call reaches the same data when `persistent` */
  open(): Promise<Store>;
  persistent: boolean;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The store under test of one `Store contract` describe, and the helpers its rules share. */
export interface ContractContext {
  /** the store opened before the rules run */
  store(): Store;
  factory: StoreFactory;
  /** a fresh collection per test, so tests never see each other's entries */
  fresh(label: string): string;
  keysOf(collection: string, query?: { from?: number; to?: number }): Promise<string[]>;
}
