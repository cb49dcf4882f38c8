/**
 * Product names that must never appear in LunaNexa: not in its sources,
 * dependency lists, API responses, assignments, node environments or images
 * (DESIGN.md invariant 1). LunaNexa works with the sibling product family
 * absent and knows nothing about it.
 *
 * The names are assembled from fragments so that this file, which every leak
 * scan reads, does not spell them itself.
 */

/** Family prefix shared by the sibling products. */
const FAMILY = ['mo', 'on'].join('');

/** Product names after the family prefix. Add a product here, not elsewhere. */
const PRODUCTS: readonly string[] = [['su', 'ite'].join(''), ['ga', 'te'].join('')];

/** Separators accepted between prefix and product ("x-y", "x_y", "x.y", "x y", "xy"). */
const SEPARATOR = '[-_. ]?';

/** Display names of the forbidden products, e.g. for reports. */
export const FORBIDDEN_PRODUCT_NAMES: readonly string[] = PRODUCTS.map(
  (product) =>
    FAMILY.charAt(0).toUpperCase() + FAMILY.slice(1) + product.charAt(0).toUpperCase() + product.slice(1),
);

/**
 * Regular-expression source matching any forbidden product name in any case,
 * also inside identifiers (`fooXyzBar`). Build a fresh `RegExp` per use:
 * `new RegExp(FORBIDDEN_PRODUCT_PATTERN_SOURCE, 'gi')`.
 */
export const FORBIDDEN_PRODUCT_PATTERN_SOURCE = `${FAMILY}${SEPARATOR}(?:${PRODUCTS.join('|')})`;
