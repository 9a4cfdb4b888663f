/**
 * What `strictness: repair` knows of every object type. What it knows of
 * one type (defaults the spec implies, where owner and address fields may be
 * filled from, synonyms of enumeration values) that type's module declares
 * (ObjectType.repairs, e.g. plugins/locations/repairs.ts).
 */

/**
 * Language of a DisplayText made from a plain string. The partner did not
 * say; OCPI's own examples and most roaming text are English, and a wrong
 * language tag is harmless to the reader where a refused Location is not.
 */
export const DISPLAY_TEXT_LANGUAGE = "en";
