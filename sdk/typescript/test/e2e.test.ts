// End to end: a real `ordo serve` (dev mode, in-process devchain) with a
// worker process as a remote sender and as a type's worker, for the
// TypeScript voting worker and the Go example worker alike. Intents go in
// through the TypeScript client; the worker is killed (SIGKILL) mid-flight
// and restarted; every intent must end DONE and be on chain exactly once.
//
// It needs ORDO_BIN (an ordo binary) and, for the Go worker's runs,
// ORDO_GO_WORKER (go build ./examples/worker); sdk/typescript/ci.sh builds
// both. Without them the runs are skipped, loudly; under CI=true they fail.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OrdoClient, keyFromSeed, type Intent, type api } from "../src/index.js";
import { freePort, need, waitFor } from "./helpers.js";

const ordoBin = process.env.ORDO_BIN;
const goWorker = process.env.ORDO_GO_WORKER;
const tsWorker = fileURLToPath(new URL("../examples/voting/main.js", import.meta.url));




/** A child process with its output kept for the failure message. */
class Proc {
  readonly child: ChildProcess;
  out = "";
  exited: Promise<number | null>;
  constructor(cmd: string, args: string[], readonly name: string) {
    this.child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    this.child.stdout!.on("data", (c) => (this.out += c));
    this.child.stderr!.on("data", (c) => (this.out += c));
    this.exited = new Promise((r) => this.child.once("exit", (code) => r(code)));
  }
  async kill(sig: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
    await this.exited;
  }
  tail(): string {
    return `--- ${this.name} (last 3000 bytes) ---\n${this.out.slice(-3000)}`;
  }
}

type Kind = "ts" | "go";
type Role = "sender" | "type";

/** The seed's five types. */
const votingTypes = ["CREATE_CLAIM_VOTING_ACCOUNT", "SEND_CLAIM_VOTE", "CREATE_VOTING_BATCHES_ACCOUNT", "RECEIVE_VOTES_BATCH", "COMMIT_ALL_VOTING_BATCHES"];

/** The voting flow over a few queues: a claim account, then votes. */
function votingIntents(run: string): Intent[] {
  const out: Intent[] = [];
  for (const q of ["claim-a", "claim-b", "claim-c"]) {
    out.push({ queue: q, type: "CREATE_CLAIM_VOTING_ACCOUNT", data: { title: q }, idempotencyKey: `${run}-${q}-create` });
    for (let v = 0; v < 3; v++) {
      out.push({ queue: q, type: "SEND_CLAIM_VOTE", data: { voter: `v${v}`, vote: v % 2 === 0, weight: 1.5 }, idempotencyKey: `${run}-${q}-vote-${v}` });
    }
  }
  return out;
}

async function scenario(kind: Kind, role: Role): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `ordo-sdk-e2e-${kind}-${role}-`));
  const procs: Proc[] = [];
  try {
    const nodePort = await freePort();
    const workerPort = await freePort();
    const nodeURL = `http://127.0.0.1:${nodePort}`;
    const workerURL = `http://127.0.0.1:${workerPort}`;
    const seed = randomBytes(32);
    const key = keyFromSeed(seed);
    const keyFile = join(dir, "worker.key");
    writeFileSync(keyFile, seed.toString("hex") + "\n", { mode: 0o600 });
    const config =
      role === "sender"
        ? `senders:\n  - worker: ${workerURL}\n    address: ${key.address}\nallowedTypes: [${[...votingTypes, "MINT_NFT"].join(", ")}]\n`
        : `devSenders: 2\ntypes:\n  SEND_CLAIM_VOTE:\n    worker: ${workerURL}\n`;
    writeFileSync(join(dir, "node.yaml"), `${config}retryDelay: 200ms\nmaxRetries: 40\nworkerTimeout: 3s\n`);
    const node = new Proc(ordoBin!, ["serve", "--dev-mode", "--block-time", "100ms", "--listen", `127.0.0.1:${nodePort}`, "--data", join(dir, "data"), "--config", join(dir, "node.yaml")], "ordo serve");
    procs.push(node);
    const client = new OrdoClient({ baseURL: nodeURL });
    await waitFor("the node is ready", 20_000, async () => (await fetch(nodeURL + "/readyz")).ok);

    // The worker: a sender's worker holds the key and is funded from the
    // devchain's faucet (the node serves it in dev mode); a type's worker
    // only builds (the Go example wants a key all the same).
    const workerArgs = ["--chain", nodeURL, "--listen", `127.0.0.1:${workerPort}`];
    if (role === "sender" || kind === "go") workerArgs.push("--key", keyFile);
    if (role === "sender") workerArgs.push("--fund", "100000000000000");
    const startWorker = async () => {
      const w = kind === "ts" ? new Proc(process.execPath, [tsWorker, ...workerArgs], "ts worker") : new Proc(goWorker!, workerArgs, "go worker");
      procs.push(w);
      // The protocol's routes answer once it listens: a GET of /dispatch is 405.
      await waitFor(`the ${kind} worker listens`, 20_000, async () => (await fetch(workerURL + "/dispatch")).status === 405);
      return w;
    };
    let worker = await startWorker();

    const intents = votingIntents(`${kind}-${role}`);
    const first = await client.submitMany(intents.slice(0, 6));
    assert.ok(first.every((r) => r.status === 201 && r.transaction), JSON.stringify(first));
    const uids = first.map((r) => r.transaction!.uid);

    // The worker dies mid-flight: once the first intent is DONE, with
    // others still going.
    await waitFor("a first intent DONE", 30_000, async () => {
      for (const uid of uids) if ((await client.transaction(uid)).state === "DONE") return true;
      return false;
    });
    await worker.kill("SIGKILL");
    const second = await client.submitMany(intents.slice(6));
    uids.push(...second.map((r) => r.transaction!.uid));
    // A repeated intake with the same keys is the same records, not new ones.
    const again = await client.submitMany(intents.slice(6));
    assert.deepEqual(again.map((r) => r.transaction!.uid), uids.slice(6));
    assert.ok(again.every((r) => r.created === false), JSON.stringify(again.map((r) => r.created)));
    // The node meets the dead worker (an attempt errs), then it comes back.
    await waitFor("the node meets the dead worker", 20_000, async () => {
      for (const uid of uids) {
        const t = await client.transaction(uid);
        if (t.state === "RETRY" || (t.attempts ?? []).some((a) => a.error)) return true;
      }
      return false;
    });
    worker = await startWorker();
    // A type neither worker has a call for: its error is permanent, so it
    // ends FAILED at once, without retries (a sender's worker only).
    let unknownUID = "";
    if (role === "sender") {
      unknownUID = (await client.submit({ queue: "nft", type: "MINT_NFT", data: { id: 1 }, idempotencyKey: `${kind}-nft` })).uid;
    }

    const done = await waitFor("every intent DONE", 60_000, async () => {
      const recs = await Promise.all(uids.map((uid) => client.transaction(uid)));
      const bad = recs.filter((r) => r.state === "FAILED");
      if (bad.length) throw new Error(`FAILED: ${JSON.stringify(bad.map((r) => [r.uid, r.error]))}`);
      return recs.every((r) => r.state === "DONE" && r.result !== undefined && r.result !== null) && recs;
    }).catch((err) => {
      throw new Error(`${err}\n${node.tail()}\n${worker.tail()}`);
    });

    if (unknownUID) {
      const t = await waitFor("the unknown type FAILED", 30_000, async () => {
        const t = await client.transaction(unknownUID);
        return t.state === "FAILED" && t.result !== undefined && t.result !== null && t;
      });
      assert.equal(t.retries, 0, JSON.stringify(t));
      assert.match(t.error ?? "", /no call for type/);
      // The worker's onFailure answered: no hook error in its result.
      assert.equal((t.result as { hookError?: string }).hookError, undefined, JSON.stringify(t.result));
    }
    // On chain: each intent's transaction succeeded exactly once, from
    // the worker's account when it is the sender, never from it when it
    // only builds.
    const head = await client.getV1Head();
    const applied = new Map<string, number>();
    for (let from = 1; from <= head.height; from += 1000) {
      const { blocks } = await client.getV1Blocks({ from, to: Math.min(head.height, from + 999) });
      for (const b of blocks ?? []) {
        for (const tx of (b as api.Block).txs ?? []) {
          if (tx.status !== "succeeded" || !tx.memo || !uids.includes(tx.memo)) continue;
          applied.set(tx.memo, (applied.get(tx.memo) ?? 0) + 1);
          if (role === "sender") assert.equal(tx.from, key.address, `${tx.memo} from ${tx.from}`);
          else assert.notEqual(tx.from, key.address, `${tx.memo}: a type's worker signs nothing`);
        }
      }
    }
    for (const uid of uids) assert.equal(applied.get(uid) ?? 0, 1, `${uid} applied ${applied.get(uid) ?? 0} times on chain`);
    // The worker's onSuccess put the zkApp's state in the records its
    // hooks ran for (every record of a sender's worker, the votes of a
    // type's worker). A hook called while the worker was dead is
    // recorded as the hook's error, and nothing else changes: the record
    // stays DONE (docs/workers.md).
    let withState = 0;
    for (const r of done) {
      if (role === "type" && r.type !== "SEND_CLAIM_VOTE") continue;
      const res = r.result as { done?: { state?: unknown }; hookError?: string };
      if (res.hookError) {
        assert.match(res.hookError, /onSuccess: .*(connection refused|connection reset|EOF)/, `${r.uid} result ${JSON.stringify(r.result)}`);
        continue;
      }
      assert.ok(res.done && res.done.state !== undefined, `${r.uid} (${r.type}) result ${JSON.stringify(r.result)}`);
      withState++;
    }
    assert.ok(withState >= 6, `${withState} records with the zkApp's state from onSuccess`);
    await worker.kill("SIGTERM");
    await node.kill("SIGTERM");
  } finally {
    for (const p of procs) await p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

const skipAll = need("ORDO_BIN", ordoBin, "the end-to-end test");
const skipGo = skipAll || need("ORDO_GO_WORKER", goWorker, "the end-to-end test");
for (const kind of ["ts", "go"] as Kind[]) {
  for (const role of ["sender", "type"] as Role[]) {
    const skip = kind === "go" ? skipGo : skipAll;
    test(`e2e: the ${kind} worker as a ${role === "sender" ? "remote sender" : "type's worker"}, killed and restarted`, { skip, timeout: 180_000 }, () => scenario(kind, role));
  }
}
