type Container = Record<string, unknown> | unknown[];

/**
 * OCPI cardinality `?` and `*` fields may be sent as null, meaning absent
 * (OCPI 2.2.1 Types). Dropping them before validation lets every schema
 * treat optional fields one way. Array elements are kept as they are.
 * A value that holds no such null is returned as it is (most objects of a
 * pulled page: a copy of each would cost more than validating it); callers
 * only read the result.
 */
export const withoutNulls = (value: unknown): unknown => (!nullFree.has(value as object) && holdsNull(value) ? copyWithoutNulls(value) : value);

/** Parsed request bodies whose text had no member set to null (the body scanner saw none): not walked again. */
const nullFree = new WeakSet<object>();

/** `body`, parsed from a text in which no object member is null, need not be looked through by withoutNulls. */
export const knownNullFree = (body: object): void => void nullFree.add(body);

/** Whether any object within `value` has a property that is null; iterative like the copy. */
const holdsNull = (value: unknown): boolean => {
  const toScan: unknown[] = [value];
  for (let next = toScan.pop(); next !== undefined; next = toScan.pop()) {
    if (Array.isArray(next)) {
      for (const item of next) if (item !== null && typeof item === "object") toScan.push(item);
    } else if (next !== null && typeof next === "object")
      for (const item of Object.values(next)) {
        if (item === null) return true;
        if (typeof item === "object") toScan.push(item);
      }
  }
  return false;
};

/**
 * Iterative, with its own stack of containers still to copy: a recursive walk
 * overflowed the call stack on a body of ~7,700 nested arrays (issue #8).
 * Each copy is created empty when its parent is copied (so keys keep their
 * order) and filled when its turn on the stack comes.
 */
const copyWithoutNulls = (value: unknown): unknown => {
  const toFill: [from: Container, to: Container][] = [];
  const copyOf = (item: unknown): unknown => {
    if (item === null || typeof item !== "object") return item;
    const copy: Container = Array.isArray(item) ? [] : {};
    toFill.push([item as Container, copy]);
    return copy;
  };
  const root = copyOf(value);
  for (let next = toFill.pop(); next !== undefined; next = toFill.pop()) {
    const [from, to] = next;
    if (Array.isArray(from)) for (const item of from) (to as unknown[]).push(copyOf(item));
    else for (const [key, item] of Object.entries(from)) if (item !== null) (to as Record<string, unknown>)[key] = copyOf(item);
  }
  return root;
};
