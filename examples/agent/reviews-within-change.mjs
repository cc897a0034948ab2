// Narrows the Closer's and the Watcher's answer schemas for a model decoded under a grammar (the embedded
// one), as the judgement is narrowed to the board's moves: every free string is short (an id is a word, a line
// is a line), so a small model answers about this one step instead of filling hundreds of tokens. The core
// parses each answer against its full contract, so a narrowed schema only makes answers stricter.

/** The longest string each field of a review may be, by field name; any other free string gets `other`. */
const LIMITS = { id: 32, description: 120, evidence: 120, summary: 160, inspection_log: 400, reclassification_suggestion: 120, other: 160 };
const REVIEWS = new Set(["closer_output", "watcher_verdict"]);

/** A copy of `schema` with a `maxLength` on every free string (a `const` or an `enum` is left as it is). */
export function withShortStrings(schema, field = "other") {
  if (Array.isArray(schema)) return schema.map((item) => withShortStrings(item, field));
  if (schema === null || typeof schema !== "object") return schema;
  const copy = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value && typeof value === "object") {
      copy.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, withShortStrings(property, name)]));
    } else if (key === "const" || key === "enum") {
      copy[key] = value;
    } else {
      copy[key] = withShortStrings(value, field);
    }
  }
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes("string") && copy.enum === undefined && copy.const === undefined) {
    const limit = LIMITS[field] ?? LIMITS.other;
    copy.maxLength = Math.min(copy.maxLength ?? limit, limit);
  }
  return copy;
}

/** A query function that sends the reviews' schemas with short strings and passes every other request as is. */
export function reviewsWithinChange(query) {
  return (prompt, options) => {
    if (!REVIEWS.has(options?.schemaName) || !options?.outputSchema) return query(prompt, options);
    return query(prompt, { ...options, outputSchema: withShortStrings(options.outputSchema) });
  };
}
