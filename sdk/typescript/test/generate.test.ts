// The generated client is current with the committed API documents, and
// has one method per operation and per ptx_ method.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { GeneratedClient } from "../src/index.js";

const pkg = fileURLToPath(new URL("../../", import.meta.url));
const repo = fileURLToPath(new URL("../../../../", import.meta.url));

test("src/generated/api.ts is what npm run generate writes", () => {
  const r = spawnSync(process.execPath, ["scripts/generate.mjs", "--check"], { cwd: pkg, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});

test("one method per operation, one per ptx_ method", () => {
  const openapi = JSON.parse(readFileSync(repo + "apispec/openapi.json", "utf8"));
  const openrpc = JSON.parse(readFileSync(repo + "apispec/openrpc.json", "utf8"));
  const c = new GeneratedClient({ baseURL: "http://127.0.0.1:1" }) as unknown as Record<string, unknown> & { ptx: Record<string, unknown> };
  let ops = 0;
  for (const path of Object.values(openapi.paths) as Record<string, { operationId?: string }>[]) {
    for (const op of Object.values(path)) {
      if (!op.operationId) continue;
      ops++;
      const name = op.operationId.replace(/[_-]+([a-zA-Z0-9])/g, (_: string, ch: string) => ch.toUpperCase());
      assert.equal(typeof c[name], "function", name);
    }
  }
  assert.ok(ops >= 40, `${ops} operations`);
  for (const m of openrpc.methods as { name: string }[]) {
    assert.equal(typeof c.ptx[m.name.replace(/^ptx_/, "")], "function", m.name);
  }
});
