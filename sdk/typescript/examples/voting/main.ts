// The voting worker as a process:
//
//   node dist/examples/voting/main.js --new-key worker.key      # prints the address
//   node dist/examples/voting/main.js --key worker.key --chain http://127.0.0.1:7545 --listen 127.0.0.1:7080 --fund 100000000000000
//
// Without --key it is only a type's worker (build and the hooks).
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DevchainClient, keyFromSeed, readKeyFile, serveWorker } from "../../src/index.js";
import { votingWorker } from "./voting.js";

const { values } = parseArgs({
  options: {
    listen: { type: "string", default: "127.0.0.1:7080" },
    chain: { type: "string", default: "http://127.0.0.1:7545" },
    key: { type: "string" },
    "new-key": { type: "string" },
    fund: { type: "string", default: "0" },
  },
});

if (values["new-key"]) {
  const seed = randomBytes(32);
  writeFileSync(values["new-key"], seed.toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  console.log(keyFromSeed(seed).address);
  process.exit(0);
}

const key = values.key ? readKeyFile(values.key) : undefined;
const chain = new DevchainClient(values.chain!);
const log = (msg: string, f: Record<string, unknown>) => console.error(JSON.stringify({ msg, ...f }));
if (key && BigInt(values.fund!) > 0n) {
  const acct = await chain.account(key.address);
  if (acct.balance < BigInt(values.fund!)) await chain.faucet(key.address, BigInt(values.fund!));
}
const i = values.listen!.lastIndexOf(":");
const { url } = await serveWorker(votingWorker(chain, key, log), { host: values.listen!.slice(0, i), port: Number(values.listen!.slice(i + 1)) });
log("worker listening", { url, address: key?.address ?? null, chain: values.chain });
