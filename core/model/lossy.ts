import type { Logger } from "pino";
import type { TranslationContext } from "../contract/object-type";

/**
 * Logs each field a version translation had to drop once per partner, object
 * and field: operators learn what a partner cannot receive without their
 * logs filling up with the same line for every object.
 */
export class LossyTranslationLog {
  private readonly seen = new Set<string>();

  constructor(private readonly log: Logger) {}

  /** Every field this instance has dropped so far, once per partner, object, field and version (the status page shows them). */
  seenLosses(): { partner: string; object: string; field: string; version: string }[] {
    return [...this.seen].map((key) => {
      const [partner, object, field, version] = key.split("\u0000");
      return { partner, object, field, version };
    });
  }

  context(
    partnerId: string,
    objectName: string,
    version: string,
    params: Record<string, string>,
    owner?: { country_code: string; party_id: string },
  ): TranslationContext {
    return {
      params,
      owner,
      dropped: (field, why) => {
        const key = `${partnerId}\u0000${objectName}\u0000${field}\u0000${version}`;
        if (this.seen.has(key)) return;
        this.seen.add(key);
        this.log.warn({ partner: partnerId, object: objectName, field, version, why }, "field dropped by version translation");
      },
    };
  }
}
