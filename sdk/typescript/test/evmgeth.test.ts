// The SDK's EVM signing and JSON-RPC client against a real go-ethereum
// node (`geth --dev`, a block a second): transactions signed in TypeScript
// are accepted, mined and recovered to their sender by geth itself.
//
// It needs ORDO_GETH (a geth binary; sdk/typescript/ci.sh sets it from
// $(go env GOPATH)/bin, where .ci/run installs geth). Without it the test is
// skipped, loudly; under CI=true it fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVMClient, OrdoError, evmKey, ordoEVMTx, signEVMTx } from "../src/index.js";
import { freePort, need, waitFor } from "./helpers.js";

const gethBin = process.env.ORDO_GETH;
// geth --dev's funded dev account (internal/procs.GethDevKey): public.
const gethDevKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291";




test("geth accepts, mines and recovers transactions the SDK signs", { skip: need("ORDO_GETH", gethBin, "the EVM signing test against geth"), timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ordo-geth-"));
  const httpPort = await freePort();
  const wsPort = await freePort();
  const geth = spawn(gethBin!, ["--dev", "--dev.period", "1", "--ipcdisable", "--nodiscover", "--http", "--http.addr", "127.0.0.1",
    "--http.port", String(httpPort), "--http.api", "eth,net,web3,txpool", "--ws", "--ws.addr", "127.0.0.1", "--ws.port", String(wsPort),
    "--datadir", dir], { stdio: ["ignore", "ignore", "pipe"] });
  let out = "";
  geth.stderr!.on("data", (c) => (out = (out + c).slice(-4000)));
  const exited = new Promise((r) => geth.once("exit", r));
  t.after(async () => {
    if (geth.exitCode === null) geth.kill("SIGKILL");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  try {
    const rpc = new EVMClient(`http://127.0.0.1:${httpPort}`, { timeoutMs: 5000 });
    const chainId = await waitFor("geth's JSON-RPC", 60_000, () => rpc.chainId());
    const dev = evmKey(gethDevKey);
    const user = evmKey("0x" + "5a".repeat(32));
    const fee = 100_000_000_000n; // 100 gwei: above geth --dev's base fee
    const mined = (hash: string) => waitFor(`${hash} mined`, 30_000, async () => {
      const st = await rpc.txStatus(hash);
      return st.state === "included" ? st : undefined;
    });

    // The dev account funds the user: a plain transfer.
    const fund = signEVMTx({ chainId, nonce: await rpc.nonce(dev.address), maxPriorityFeePerGas: 1_000_000_000n, maxFeePerGas: fee, gas: 21000, to: user.address, value: 10n ** 18n }, dev);
    assert.equal(await rpc.sendRawTransaction(fund.raw), fund.hash);
    const st = await mined(fund.hash);
    assert.equal(st.success, true);
    assert.equal(st.from, dev.address);

    // The user makes an attempt as the node makes one: fee cap, the tip
    // derived from it, a gas estimate, calldata.
    const data = "0x" + "ab".repeat(40);
    const gas = await rpc.estimateGas({ from: user.address, to: dev.address, data });
    const tx = ordoEVMTx({ chainId, sender: { nonce: await rpc.nonce(user.address), fee: String(fee) }, gas, to: dev.address, data });
    const signed = signEVMTx(tx, user);
    assert.equal(await rpc.sendRawTransaction(signed.raw), signed.hash);
    const st2 = await mined(signed.hash);
    assert.equal(st2.success, true);
    assert.equal(st2.from, user.address);

    // Sent again once mined: nonce_too_low, ordo's code.
    await assert.rejects(rpc.sendRawTransaction(signed.raw), (err: unknown) => err instanceof OrdoError && err.code === "nonce_too_low");
    // An account without funds: insufficient_funds.
    const poor = evmKey("0x" + "6b".repeat(32));
    const broke = signEVMTx({ ...tx, nonce: 0 }, poor);
    await assert.rejects(rpc.sendRawTransaction(broke.raw), (err: unknown) => err instanceof OrdoError && err.code === "insufficient_funds");
    assert.deepEqual(await rpc.txStatus(broke.hash), { hash: broke.hash, state: "unknown" });
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- geth (last 4000 bytes) ---\n${out}`);
  }
});
