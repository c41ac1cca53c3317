// JSON without lossy numbers: a parser that keeps integers beyond 2^53 as
// bigint (or every number as written), a serializer that writes bigint as
// a JSON number, and the canonical form devchain hashes (Go's
// encoding/json: keys sorted by their UTF-8 bytes, no insignificant
// whitespace, no HTML escaping, numbers as written).

/** A JSON number kept exactly as written (parseJSON's `numbers: "raw"`). */
export class RawNumber {
  /** The number's literal, e.g. "1.50" or "123456789012345678901234567890". */
  constructor(readonly literal: string) {}
  toString(): string {
    return this.literal;
  }
}

/** A JSON text written verbatim by stringifyJSON (it must be valid JSON). */
export class RawJSON {
  constructor(readonly text: string) {}
}

/** A JSON value as parseJSON returns it. */
export type JSONValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | RawNumber
  | JSONValue[]
  | { [key: string]: JSONValue };

/** How parseJSON returns numbers. */
export interface ParseOptions {
  /**
   * "auto" (the default): an integer beyond Number.MAX_SAFE_INTEGER is a
   * bigint, every other number a number. "raw": every number is a
   * RawNumber holding its literal.
   */
  numbers?: "auto" | "raw";
}

/** A JSON text that does not parse. */
export class JSONSyntaxError extends SyntaxError {
  constructor(message: string, readonly position: number) {
    super(`${message} at position ${position}`);
    this.name = "JSONSyntaxError";
  }
}

const numberRe = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * parseJSON parses one JSON text (RFC 8259) without losing numbers: see
 * ParseOptions. Duplicate keys keep the last value, as Go's decoder does.
 */
export function parseJSON(text: string, opts: ParseOptions = {}): JSONValue {
  const raw = opts.numbers === "raw";
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
  };
  const fail = (msg: string): never => {
    throw new JSONSyntaxError(msg, i);
  };
  const str = (): string => {
    // i is at the opening quote.
    i++;
    let out = "";
    let start = i;
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail("control character in string");
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      const e = text[i + 1];
      i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case "\\": out += "\\"; break;
        case "/": out += "/"; break;
        case "b": out += "\b"; break;
        case "f": out += "\f"; break;
        case "n": out += "\n"; break;
        case "r": out += "\r"; break;
        case "t": out += "\t"; break;
        case "u": {
          const h = text.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) fail("bad \\u escape");
          out += String.fromCharCode(parseInt(h, 16));
          i += 4;
          break;
        }
        default:
          fail("bad escape");
      }
      start = i;
    }
  };
  const value = (depth: number): JSONValue => {
    if (depth > 10000) fail("too deep");
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const obj: { [key: string]: JSONValue } = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const k = str();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        const v = value(depth + 1);
        Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: JSONValue[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    numberRe.lastIndex = i;
    const m = numberRe.exec(text);
    if (!m) return fail("unexpected character");
    const lit = m[0];
    i += lit.length;
    if (raw) return new RawNumber(lit);
    if (/^-?[0-9]+$/.test(lit)) {
      const n = Number(lit);
      return Number.isSafeInteger(n) ? n : BigInt(lit);
    }
    return Number(lit);
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail("trailing data after the value");
  return v;
}

// Go's encoding/json string escaping without HTML escaping: ", \, the
// control characters (\b \f \n \r \t by name, the others \u00xx), U+2028
// and U+2029; a lone surrogate becomes U+FFFD (Go's decoder reads it so).
function quote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c === 0x22) esc = '\\"';
    else if (c === 0x5c) esc = "\\\\";
    else if (c < 0x20) {
      esc =
        c === 0x08 ? "\\b" : c === 0x0c ? "\\f" : c === 0x0a ? "\\n" : c === 0x0d ? "\\r" : c === 0x09 ? "\\t"
          : "\\u00" + c.toString(16).padStart(2, "0");
    } else if (c === 0x2028) esc = "\\u2028";
    else if (c === 0x2029) esc = "\\u2029";
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      esc = "\ufffd";
    } else if (c >= 0xdc00 && c <= 0xdfff) esc = "\ufffd";
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

const utf8 = new TextEncoder();

// Go sorts map keys by their bytes (UTF-8), not by UTF-16 code units.
function byUTF8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(utf8.encode(a)), Buffer.from(utf8.encode(b)));
}

function write(v: unknown, sorted: boolean, depth: number): string | undefined {
  if (depth > 10000) throw new RangeError("JSON value too deep");
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`${v} has no JSON form`);
      return JSON.stringify(v);
    case "bigint":
      return v.toString();
    case "string":
      return quote(v);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (v instanceof RawNumber) return v.literal;
  if (v instanceof RawJSON) return v.text;
  if (Array.isArray(v)) return "[" + v.map((x) => write(x, sorted, depth + 1) ?? "null").join(",") + "]";
  const o = v as { toJSON?: () => unknown };
  if (typeof o.toJSON === "function") return write(o.toJSON(), sorted, depth + 1);
  let keys = Object.keys(v as object);
  if (sorted) keys = keys.sort(byUTF8);
  const parts: string[] = [];
  for (const k of keys) {
    const s = write((v as Record<string, unknown>)[k], sorted, depth + 1);
    if (s !== undefined) parts.push(quote(k) + ":" + s);
  }
  return "{" + parts.join(",") + "}";
}

/**
 * stringifyJSON writes v as compact JSON: bigint and RawNumber as numbers,
 * strings escaped as Go's encoding/json escapes them without HTML
 * escaping. Keys keep their order unless sorted is true.
 */
export function stringifyJSON(v: unknown, sorted = false): string {
  const s = write(v, sorted, 0);
  if (s === undefined) throw new TypeError("the value has no JSON form");
  return s;
}

/**
 * canonicalJSON is devchain's canonical form of a JSON text (Go's
 * chain.CanonicalArgs): keys sorted by their bytes, no insignificant
 * whitespace, no HTML escaping, numbers as written, duplicate keys
 * resolved to the last. Empty text and null are "" (no args).
 */
export function canonicalJSON(text: string): string {
  if (text.trim() === "") return "";
  const v = parseJSON(text, { numbers: "raw" });
  if (v === null) return "";
  return stringifyJSON(v, true);
}
