/** The `parties` section: the platform's own OCPI identities, with their business details. */
import { z } from "zod";
import { ROLES } from "../../core/protocol/vocabulary";
import { IMAGE_CATEGORIES, MESSAGES } from "../schema-messages";
import { httpUrl, int, msg, str } from "./blocks";

export const imageSchema = z.strictObject({
  url: httpUrl(),
  thumbnail: httpUrl().optional(),
  category: z.enum(IMAGE_CATEGORIES, { error: msg(MESSAGES.imageCategory) }),
  type: str(/^[a-z]{1,4}$/, MESSAGES.imageType),
  width: int(1, 99999, MESSAGES.imageSize).optional(),
  height: int(1, 99999, MESSAGES.imageSize).optional(),
});

export const partySchema = z.strictObject({
  country_code: str(/^[A-Z]{2}$/, MESSAGES.countryCode),
  party_id: str(/^[A-Z0-9]{3}$/, MESSAGES.partyId),
  role: z.enum(ROLES, { error: msg(MESSAGES.role) }),
  business_details: z.strictObject({
    name: z
      .string({ error: msg(MESSAGES.businessName) })
      .min(1, { error: MESSAGES.businessName })
      .max(100, { error: MESSAGES.businessName }),
    website: httpUrl().optional(),
    logo: imageSchema.optional(),
  }),
});
