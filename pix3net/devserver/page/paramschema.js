// The page-side parameter check of window.__PIX3_DEBUG__.call (docs/bridge.md, "The inline
// validator"): the JSON Schema keywords the tool table uses, the first problem as one sentence.
// chrome-devtools-mcp validates its own path with ajv before the page sees the call.

function typeProblem(type, value, at) {
  let ok;
  switch (type) {
    case "object": ok = value !== null && typeof value === "object" && !Array.isArray(value); break;
    case "array": ok = Array.isArray(value); break;
    case "integer": ok = Number.isInteger(value); break;
    case "number": ok = typeof value === "number" && Number.isFinite(value); break;
    case "string": ok = typeof value === "string"; break;
    case "boolean": ok = typeof value === "boolean"; break;
    default: ok = true;
  }
  if (ok) return null;
  return type === "integer" ? `${at} must be an integer` : `${at} must be of type ${type}`;
}

// The first problem of `value` against `schema` as a sentence naming where (`params.maxDepth`),
// or null. Keywords: type, enum, minimum, maximum, items, required, properties,
// additionalProperties; a key whose value is undefined counts as absent.
export function validateParams(schema, value, at = "params") {
  if (schema.type !== undefined) {
    const problem = typeProblem(schema.type, value, at);
    if (problem) return problem;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    return `${at} must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return `${at} must be >= ${schema.minimum}`;
    if (typeof schema.maximum === "number" && value > schema.maximum) return `${at} must be <= ${schema.maximum}`;
  }
  if (schema.items && Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const problem = validateParams(schema.items, value[i], `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  if (schema.type === "object") {
    for (const key of schema.required ?? []) {
      if (value[key] === undefined) return `${at} needs "${key}"`;
    }
    const properties = schema.properties ?? {};
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key)) {
        if (schema.additionalProperties === false) return `${at} has an unknown key "${key}"`;
        continue;
      }
      if (value[key] === undefined) continue;
      const problem = validateParams(properties[key], value[key], `${at}.${key}`);
      if (problem) return problem;
    }
  }
  return null;
}
