// The generated client is current with the committed API documents, and
// has one method per operation and per ptx_ method.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

test("two operations with one operationId are refused, naming both", () => {
  // The script in a scratch tree whose document gives GET /v1/head the
  // operationId of GET /v1/accounts/{address}.
  const root = mkdtempSync(join(tmpdir(), "ordo-sdk-gen-"));
  try {
    mkdirSync(join(root, "apispec"));
    mkdirSync(join(root, "sdk", "typescript", "scripts"), { recursive: true });
    copyFileSync(pkg + "scripts/generate.mjs", join(root, "sdk", "typescript", "scripts", "generate.mjs"));
    copyFileSync(repo + "apispec/openrpc.json", join(root, "apispec", "openrpc.json"));
    const openapi = JSON.parse(readFileSync(repo + "apispec/openapi.json", "utf8"));
    openapi.paths["/v1/head"].get.operationId = openapi.paths["/v1/accounts/{address}"].get.operationId;
    writeFileSync(join(root, "apispec", "openapi.json"), JSON.stringify(openapi));
    const r = spawnSync(process.execPath, [join(root, "sdk", "typescript", "scripts", "generate.mjs"), "--check"], { encoding: "utf8" });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /GET \/v1\/head and GET \/v1\/accounts\/\{address\} share the operationId get_v1_accounts_address/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
