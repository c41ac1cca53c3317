// A TypeScript worker sender on an EVM chain, end to end: `ordo evmdev`
// (go-ethereum's simulated chain with ordo's contracts), `ordo serve` on it
// with the worker as its only sender, and intents of type call that the
// worker builds as OrdoRouter.execute(uid, calls), signs with the SDK and
// sends. Each must end DONE, its transaction from the worker's account.
//
// It needs ORDO_BIN (sdk/typescript/ci.sh sets it). Without it the test is
// skipped, loudly; under CI=true it fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  EVMClient, OrdoClient, WorkerError, encodeRouterExecute, keccak256, ordoEVMTx, readEVMKeyFile, signEVMTx, Worker, type EVMTxStatus, type RouterCall,
} from "../src/index.js";
import { freePort, need, waitFor } from "./helpers.js";

const ordoBin = process.env.ORDO_BIN;




/** A child process with the tail of its output kept for a failure. */
function run(cmd: string, args: string[]): { child: ChildProcess; out: () => string; stop: () => Promise<void> } {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (c: Buffer) => (out = (out + c).slice(-4000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise((r) => child.once("exit", r));
  return {
    child, out: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

// The Voting contract's calls the worker knows, ABI-encoded by hand: its
// arguments are strings and bools.
const votingCalls: Record<string, { sig: string; args: string[] }> = {
  create_claim_voting_account: { sig: "createClaimVotingAccount(string,string)", args: ["account", "title"] },
  send_claim_vote: { sig: "sendClaimVote(string,string,bool)", args: ["account", "voter", "vote"] },
};

function word(n: bigint): string {
  return n.toString(16).padStart(64, "0");
}

function encodeCall(method: string, args: Record<string, unknown>): string {
  const c = votingCalls[method];
  if (!c) throw new WorkerError(`no call voting.${method}`, { permanent: true });
  let head = "";
  let tail = "";
  for (const name of c.args) {
    const v = args[name];
    if (typeof v === "boolean") {
      head += word(v ? 1n : 0n);
    } else if (typeof v === "string") {
      head += word(BigInt(32 * c.args.length + tail.length / 2));
      const b = Buffer.from(v, "utf8");
      tail += word(BigInt(b.length)) + b.toString("hex").padEnd(Math.ceil(b.length / 32) * 64, "0");
    } else {
      throw new WorkerError(`voting.${method}: ${name} must be a string or a bool`, { permanent: true });
    }
  }
  return keccak256(Buffer.from(c.sig)).slice(0, 10) + head + tail;
}

test("a TypeScript worker sender on an EVM node: every intent DONE, sent from its account", { skip: need("ORDO_BIN", ordoBin, "the EVM worker sender test"), timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ordo-sdk-evmworker-"));
  const procs: ReturnType<typeof run>[] = [];
  t.after(async () => {
    for (const p of procs) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const [httpPort, wsPort, nodePort, workerPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const chainDir = join(dir, "chain");
  const evmdev = run(ordoBin!, ["evmdev", "--http", `127.0.0.1:${httpPort}`, "--ws", `127.0.0.1:${wsPort}`, "--data", chainDir, "--block-time", "200ms", "--accounts", "2"]);
  procs.push(evmdev);
  const evmYAML = await waitFor("evmdev's evm.yaml", 60_000, async () => existsSync(join(chainDir, "evm.yaml")) && readFileSync(join(chainDir, "evm.yaml"), "utf8"));
  const router = /router: "(0x[0-9a-f]{40})"/.exec(evmYAML)![1];
  const voting = /voting: \{address: "(0x[0-9a-f]{40})"/.exec(evmYAML)![1];

  // The worker holds dev account 1's key: evmdev made it a submitter.
  const key = readEVMKeyFile(join(chainDir, "dev1.key"));
  const rpc = new EVMClient(`http://127.0.0.1:${httpPort}`);
  const chainId = await rpc.chainId();
  const gasOf = new Map<string, bigint>();
  const dispatched: { uid: string; nonce: bigint; fee: string; hash: string }[] = [];
  const worker = new Worker({
    async dispatch({ txnData, sender, signal }) {
      if (sender.accountId !== key.address) throw new WorkerError(`not my sender: ${sender.accountId}`, { permanent: true });
      const d = txnData.data as { contract?: string; method?: string; args?: Record<string, unknown> };
      if (txnData.type !== "call" || d.contract !== "voting") throw new WorkerError(`no call for type ${txnData.type}`, { permanent: true });
      const calls: RouterCall[] = [{ target: voting, data: encodeCall(d.method ?? "", d.args ?? {}) }];
      const id = `${txnData.uid}/${sender.nonce}`;
      let gas = sender.gas !== undefined ? BigInt(sender.gas) : gasOf.get(id);
      if (gas === undefined) {
        const strict = encodeRouterExecute(txnData.uid, calls, true);
        gas = ((await rpc.estimateGas({ from: key.address, to: router, data: strict }, signal)) * 130n) / 100n;
        gasOf.set(id, gas);
      }
      const { raw, hash } = signEVMTx(ordoEVMTx({ chainId, sender, gas, to: router, data: encodeRouterExecute(txnData.uid, calls) }), key);
      dispatched.push({ uid: txnData.uid, nonce: sender.nonce, fee: sender.fee, hash });
      if ((await rpc.txStatus(hash, signal)).state !== "unknown") return { hash };
      try {
        await rpc.sendRawTransaction(raw, signal);
      } catch (err) {
        throw new WorkerError((err as Error).message, { code: (err as { code?: string }).code, hash });
      }
      return { hash };
    },
  });
  const workerURL = await worker.listen(workerPort, "127.0.0.1");
  t.after(() => worker.close());

  const token = "evm-worker-test-token";
  const config = `devSenders: 0
retryDelay: 300ms
maxRetries: 10
senders:
  - worker: ${workerURL}
    address: ${key.address}
${evmYAML}
intake:
  typeRoles: {call: [submit]}
principals:
  - principal: sdk
    tokenSHA256: ${createHash("sha256").update(token).digest("hex")}
    roles: [submit, read]
`;
  writeFileSync(join(dir, "node.yaml"), config);
  const node = run(ordoBin!, ["serve", "--config", join(dir, "node.yaml"), "--listen", `127.0.0.1:${nodePort}`, "--data", join(dir, "node")]);
  procs.push(node);
  const nodeURL = `http://127.0.0.1:${nodePort}`;
  try {
    await waitFor("the node is ready", 60_000, async () => (await fetch(nodeURL + "/readyz")).ok);
    const ordo = new OrdoClient({ baseURL: nodeURL, token });
    const intents: { queue: string; type: string; data: Record<string, unknown>; idempotencyKey: string }[] = [
      { queue: "claim-1", type: "call", data: { contract: "voting", method: "create_claim_voting_account", args: { account: "c1", title: "a title" } }, idempotencyKey: "k1" },
      { queue: "claim-1", type: "call", data: { contract: "voting", method: "send_claim_vote", args: { account: "c1", voter: "v1", vote: true } }, idempotencyKey: "k2" },
      { queue: "claim-1", type: "call", data: { contract: "voting", method: "send_claim_vote", args: { account: "c1", voter: "ключ 😀", vote: false } }, idempotencyKey: "k3" },
    ];
    const uids: string[] = [];
    for (const i of intents) uids.push((await ordo.submit(i as Parameters<typeof ordo.submit>[0])).uid);
    const recs = await waitFor("every intent DONE", 90_000, async () => {
      const recs = await Promise.all(uids.map((uid) => ordo.transaction(uid)));
      const bad = recs.filter((r) => r.state === "FAILED");
      if (bad.length) throw new Error(`FAILED: ${JSON.stringify(bad.map((r) => [r.uid, r.error]))}`);
      return recs.every((r) => r.state === "DONE") && recs;
    });
    for (const r of recs) {
      const hashes = dispatched.filter((d) => d.uid === r.uid).map((d) => d.hash);
      assert.ok(hashes.length > 0, `${r.uid}: never dispatched to the worker`);
      const landed: EVMTxStatus[] = [];
      for (const h of new Set(hashes)) {
        const st = await rpc.txStatus(h);
        if (st.state === "included") landed.push(st);
      }
      assert.equal(landed.length, 1, `${r.uid}: ${landed.length} of its transactions on chain`);
      assert.equal(landed[0].success, true);
      assert.equal(landed[0].from, key.address);
      // The node watched that very hash: the worker's answer.
      assert.ok((r.attempts ?? []).some((a) => a.hash === landed[0].hash), `${r.uid}: ${JSON.stringify(r.attempts)}`);
    }
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- ordo serve ---\n${node.out()}\n--- evmdev ---\n${evmdev.out()}`);
  }
});
