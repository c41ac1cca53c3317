// The voting example as a process: it says where it listens, answers the
// health route, and exits 0 on SIGTERM (graceful shutdown), with no chain
// behind it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../examples/voting/main.js", import.meta.url));

test("the worker process serves /healthz and exits 0 on SIGTERM", async () => {
  const child = spawn(process.execPath, [main, "--listen", "127.0.0.1:0", "--chain", "http://127.0.0.1:1"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (c) => {
      err += c;
      const m = /"url":"(http:\/\/[^"]+)"/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${err}`)));
  });
  const h = await fetch(url + "/healthz");
  assert.equal(h.status, 200);
  assert.deepEqual(await h.json(), { status: "ok" });
  child.kill("SIGTERM");
  const [code, signal] = await once(child, "exit");
  assert.equal(signal, null, err);
  assert.equal(code, 0, err);
  assert.match(err, /"msg":"closing".*"signal":"SIGTERM"|closing/);
});
