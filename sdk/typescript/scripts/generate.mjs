// npm run generate: writes src/generated/api.ts, the typed client of the
// node's API, from the committed documents apispec/openapi.json and
// apispec/openrpc.json: a type for every schema, one method per
// operation, one per ptx_ method. Wei amounts (AMOUNTS) are bigint.
//
//   node scripts/generate.mjs [--check]
//
// --check writes nothing and exits 1 when the file is stale.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const repo = join(pkg, "..", "..");
const out = join(pkg, "src", "generated", "api.ts");

// AMOUNTS are the integer properties that hold wei amounts: they decode to
// bigint and encode from bigint, never a lossy number. The documents give
// integers no format, so the names say which are amounts.
const AMOUNTS = new Set(["amount", "balance", "fee", "minFee"]);

const openapi = JSON.parse(readFileSync(join(repo, "apispec", "openapi.json"), "utf8"));
const openrpc = JSON.parse(readFileSync(join(repo, "apispec", "openrpc.json"), "utf8"));

const ident = (s) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s);
const key = (s) => (ident(s) ? s : JSON.stringify(s));
const camel = (s) => s.replace(/[_-]+([a-zA-Z0-9])/g, (_, c) => c.toUpperCase());
const refName = (ref, prefix) => prefix + ref.split("/").pop();
const comment = (text, indent = "") => {
  if (!text) return "";
  const lines = String(text).replace(/\*\//g, "*\\/").split("\n");
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
};

// typeOf is the TypeScript type of a schema; prop is the property's name,
// for the amount rule.
function typeOf(s, prefix, prop, indent = "") {
  if (!s || Object.keys(s).filter((k) => k !== "description").length === 0) return "JSONValue";
  if (s.$ref) return refName(s.$ref, prefix);
  if (s.oneOf || s.anyOf) return [...new Set((s.oneOf ?? s.anyOf).map((x) => typeOf(x, prefix, prop, indent)))].join(" | ");
  if (s.allOf) {
    const parts = s.allOf.map((x) => typeOf(x, prefix, prop, indent));
    return parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(" & ");
  }
  if (Array.isArray(s.type)) return s.type.map((t) => typeOf({ ...s, type: t }, prefix, prop, indent)).join(" | ");
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(" | ");
  switch (s.type) {
    case "null":
      return "null";
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "integer":
      return AMOUNTS.has(prop) ? "bigint" : "number";
    case "number":
      return "number";
    case "array":
      return `Array<${typeOf(s.items, prefix, undefined, indent)}>`;
    case "object":
    case undefined: {
      const props = s.properties ?? {};
      const req = new Set(s.required ?? []);
      const names = Object.keys(props);
      const ap = s.additionalProperties;
      if (names.length === 0) {
        if (ap && typeof ap === "object") return `{ [key: string]: ${typeOf(ap, prefix, undefined, indent)} }`;
        return s.type === "object" ? "{ [key: string]: JSONValue }" : "JSONValue";
      }
      const inner = indent + "  ";
      let body = "{\n";
      for (const n of names) {
        body += comment(props[n].description, inner);
        body += `${inner}${key(n)}${req.has(n) ? "" : "?"}: ${typeOf(props[n], prefix, n, inner)};\n`;
      }
      if (ap && typeof ap === "object") body += `${inner}[key: string]: unknown;\n`;
      return body + indent + "}";
    }
  }
  return "JSONValue";
}

// topUnion splits a type at its top-level " | " (not inside <>, {} or ()).
function topUnion(t) {
  const out = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if ("<{(".includes(c)) depth++;
    else if (">})".includes(c)) depth--;
    else if (depth === 0 && t.startsWith(" | ", i)) {
      out.push(t.slice(start, i));
      start = i + 3;
    }
  }
  out.push(t.slice(start));
  return out;
}

// shapeOf is where a schema's answer holds amounts (see client.ts Shape),
// or undefined when nowhere.
function shapeOf(s, prefix, prop, seen, schemas) {
  if (!s) return undefined;
  if (s.$ref) {
    const name = refName(s.$ref, prefix);
    return shapeOfSchema(name, schemas[s.$ref.split("/").pop()], prefix, seen, schemas) ? name : undefined;
  }
  const alts = s.oneOf ?? s.anyOf ?? s.allOf;
  if (alts) {
    const any = alts.map((x) => shapeOf(x, prefix, prop, seen, schemas)).filter((x) => x !== undefined);
    return any.length === 0 ? undefined : any.length === 1 ? any[0] : { any };
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("integer")) return AMOUNTS.has(prop) ? "big" : undefined;
  if (types.includes("array")) {
    const i = shapeOf(s.items, prefix, undefined, seen, schemas);
    return i === undefined ? undefined : { arr: i };
  }
  if (s.properties || (s.additionalProperties && typeof s.additionalProperties === "object")) {
    // An inline object: only named schemas get a shape table entry, so an
    // inline one with amounts is not expected; its values maps are.
    if (s.additionalProperties && typeof s.additionalProperties === "object") {
      const v = shapeOf(s.additionalProperties, prefix, undefined, seen, schemas);
      if (v !== undefined) return { map: v };
    }
  }
  return undefined;
}

const shapeTables = {};
const shapeMemo = new Map();
function shapeOfSchema(name, s, prefix, seen, schemas) {
  if (shapeMemo.has(name)) return shapeMemo.get(name);
  if (seen.has(name)) return false;
  seen.add(name);
  const table = {};
  for (const [n, p] of Object.entries(s?.properties ?? {})) {
    const sh = shapeOf(p, prefix, n, seen, schemas);
    if (sh !== undefined) table[n] = sh;
  }
  seen.delete(name);
  const has = Object.keys(table).length > 0;
  shapeMemo.set(name, has);
  if (has) shapeTables[name] = table;
  return has;
}

let code = `// Code generated by npm run generate (scripts/generate.mjs) from
// apispec/openapi.json and apispec/openrpc.json. DO NOT EDIT.
/* eslint-disable */

import { ClientBase, type ClientOptions, type RequestOptions, type Shape } from "../client.js";
import type { JSONValue } from "../json.js";
import type { SSEEvent } from "../sse.js";

/** The version of the API document this client was generated from. */
export const apiVersion = ${JSON.stringify(openapi.info.version)};

`;

const apiSchemas = openapi.components.schemas;
for (const name of Object.keys(apiSchemas).sort()) {
  code += comment(apiSchemas[name].description);
  code += `export type ${name} = ${typeOf(apiSchemas[name], "", undefined)};\n\n`;
}
const rpcSchemas = openrpc.components.schemas;
for (const name of Object.keys(rpcSchemas).sort()) {
  code += comment(rpcSchemas[name].description ?? `${name} of the ptx_ JSON-RPC methods.`);
  code += `export type Ptx${name} = ${typeOf(rpcSchemas[name], "Ptx", undefined)};\n\n`;
}
for (const name of Object.keys(apiSchemas)) shapeOfSchema(name, apiSchemas[name], "", new Set(), apiSchemas);
for (const name of Object.keys(rpcSchemas)) shapeOfSchema("Ptx" + name, rpcSchemas[name], "Ptx", new Set(), rpcSchemas);

// The operations, sorted by path then method.
const methods = [];
for (const path of Object.keys(openapi.paths).sort()) {
  for (const [verb, op] of Object.entries(openapi.paths[path])) {
    if (!["get", "post", "put", "delete", "patch"].includes(verb)) continue;
    methods.push({ path, verb, op });
  }
}

// Each operation is a method named after its operationId: two operations
// with one id would be two methods with one name, which tsc refuses.
const byName = new Map();
for (const { path, verb, op } of methods) {
  const name = camel(op.operationId);
  if (byName.has(name)) {
    console.error(`apispec/openapi.json: ${verb.toUpperCase()} ${path} and ${byName.get(name)} share the operationId ${op.operationId} (method ${name}); operationIds must be unique (internal/apidoc)`);
    process.exit(1);
  }
  byName.set(name, `${verb.toUpperCase()} ${path}`);
}

let cls = "";
for (const { path, verb, op } of methods) {
  const name = camel(op.operationId);
  const params = op.parameters ?? [];
  const fields = [];
  for (const p of params) {
    fields.push(`${comment(p.description, "    ")}    ${key(p.name)}${p.required || p.in === "path" ? "" : "?"}: ${typeOf(p.schema, "", p.name, "    ")};`);
  }
  const rb = op.requestBody?.content?.["application/json"]?.schema;
  if (rb) fields.push(`    body${op.requestBody.required ? "" : "?"}: ${typeOf(rb, "", undefined, "    ")};`);
  const ok = Object.entries(op.responses).filter(([st]) => st.startsWith("2"));
  let answer = "json";
  const types = new Set();
  const shapes = [];
  for (const [, r] of ok) {
    for (const [ct, c] of Object.entries(r.content ?? {})) {
      if (ct === "text/event-stream") answer = "stream";
      else if (ct !== "application/json") answer = "text";
      else {
        types.add(typeOf(c.schema, "", undefined, "  "));
        const sh = shapeOf(c.schema, "", undefined, new Set(), apiSchemas);
        if (sh !== undefined) shapes.push(sh);
      }
    }
  }
  // The alternatives of every 2xx answer, each once.
  const alts = [...new Set([...types].flatMap(topUnion))];
  const ret = answer === "stream" ? "AsyncGenerator<SSEEvent>" : answer === "text" ? "string" : alts.length ? alts.join(" | ") : "void";
  const shape = shapes.length === 0 ? undefined : shapes.length === 1 ? shapes[0] : { any: shapes };
  const required = params.some((p) => p.required || p.in === "path") || Boolean(rb && op.requestBody.required);
  const argType = fields.length ? `{\n${fields.join("\n")}\n  }` : "Record<string, never>";
  const pathExpr = "`" + path.replace(/\{([^}]+)\}/g, (_, p) => `\${encodeURIComponent(String(args[${JSON.stringify(p)}]))}`) + "`";
  const query = params.filter((p) => p.in === "query").map((p) => `${key(p.name)}: args[${JSON.stringify(p.name)}]`);
  const doc = [op.summary, `${verb.toUpperCase()} ${path}${op["x-ordo-rule"] ? ` (${op["x-ordo-rule"]})` : ""}`].filter(Boolean).join("\n\n");
  cls += comment(doc, "  ");
  const optsType = answer === "stream" ? "RequestOptions & { lastEventId?: string }" : "RequestOptions";
  const sig = `args: ${argType}${required ? "" : " = {}"}, opts?: ${optsType}`;
  const call = `{ method: ${JSON.stringify(verb.toUpperCase())}, path: ${pathExpr}${query.length ? `, query: { ${query.join(", ")} }` : ""}${rb ? ", body: args.body" : ""}${answer !== "json" ? `, answer: ${JSON.stringify(answer)}` : ""}${shape !== undefined ? `, shape: ${JSON.stringify(shape)}` : ""} }`;
  if (answer === "stream") {
    cls += `  ${name}(${sig}): ${ret} {\n    return this.stream(${call}, opts);\n  }\n\n`;
  } else {
    cls += `  ${name}(${sig}): Promise<${ret}> {\n    return this.request<${ret}>(${call}, opts);\n  }\n\n`;
  }
}

let ptx = "";
for (const m of openrpc.methods) {
  const name = m.name.replace(/^ptx_/, "");
  const ps = m.params ?? [];
  const sig = ps.map((p) => `${camel(p.name)}${p.required ? "" : "?"}: ${typeOf(p.schema, "Ptx", p.name, "    ")}`);
  const ret = typeOf(m.result?.schema, "Ptx", undefined, "    ");
  const shape = shapeOf(m.result?.schema, "Ptx", undefined, new Set(), rpcSchemas);
  const codes = [...new Set((m.errors ?? []).map((e) => e.data?.code).filter(Boolean))];
  ptx += comment(`${m.summary ?? m.name}\n\n${m.name}${m["x-ordo-role"] ? ` (role ${m["x-ordo-role"]})` : ""}${codes.length ? `; error codes: ${codes.join(", ")}` : ""}`, "    ");
  ptx += `    ${camel(name)}: (${[...sig, "opts?: RequestOptions"].join(", ")}): Promise<${ret}> =>\n      this.rpc<${ret}>(${JSON.stringify(m.name)}, [${ps.map((p) => camel(p.name)).join(", ")}], ${shape === undefined ? "undefined" : JSON.stringify(shape)}, opts),\n`;
}

code += `/** Where each schema's answers hold wei amounts (bigint). */
export const shapes: Record<string, Record<string, Shape>> = ${JSON.stringify(Object.fromEntries(Object.keys(shapeTables).sort().map((k) => [k, shapeTables[k]])), null, 2)};

/**
 * GeneratedClient has one method per operation of the node's API (named
 * after its operationId) and, under ptx, one per ptx_ JSON-RPC method.
 * Errors are OrdoError, with the API's stable code.
 */
export class GeneratedClient extends ClientBase {
  constructor(opts: ClientOptions) {
    super(opts, shapes);
  }

  /** The ptx_ methods of POST /rpc. */
  readonly ptx = {
${ptx}  };

${cls.trimEnd()}
}
`;

if (process.argv.includes("--check")) {
  let cur = "";
  try {
    cur = readFileSync(out, "utf8");
  } catch {}
  if (cur !== code) {
    console.error(`${out} is stale: run npm run generate`);
    process.exit(1);
  }
} else {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  console.error(`wrote ${out}: ${Object.keys(apiSchemas).length + Object.keys(rpcSchemas).length} types, ${methods.length} operations, ${openrpc.methods.length} ptx_ methods`);
}
