// The seed's voting flow as a worker: each of the seed's five types is a
// call of devchain's zkapp contract, built as the node's built-in
// dispatcher (internal/sequencer/dispatch/zkapp.go) and the Go example
// worker (examples/worker) build it.
import { DevchainClient, WorkerError, signTx, txHash, type Key, type Sender, type Tx, type TxnData, type TxnResult, type WorkerHandlers } from "../../src/index.js";
import { RawJSON, parseJSON, stringifyJSON, type JSONValue } from "../../src/json.js";

/** The zkApp call of each of the seed's five types. */
export const zkMethods: Record<string, { method: string; key: string; kind: string }> = {
  CREATE_CLAIM_VOTING_ACCOUNT: { method: "deploy", key: "", kind: "claim" },
  SEND_CLAIM_VOTE: { method: "append", key: "votes", kind: "" },
  CREATE_VOTING_BATCHES_ACCOUNT: { method: "deploy", key: "", kind: "batches" },
  RECEIVE_VOTES_BATCH: { method: "append", key: "batches", kind: "" },
  COMMIT_ALL_VOTING_BATCHES: { method: "set", key: "committed", kind: "" },
};

// dataObject is the intent's data as an object of raw JSON values (null
// and absent data are empty); anything else cannot be built.
function dataObject(txn: TxnData): Record<string, JSONValue> {
  if (txn.dataJSON === undefined) return {};
  const v = parseJSON(txn.dataJSON, { numbers: "raw" });
  if (v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new WorkerError(`${txn.type}: data must be a JSON object`, { permanent: true });
  return v as Record<string, JSONValue>;
}

/** zkAppOf is the zkApp a transaction changes: data.zkapp when set, else its queue. */
export function zkAppOf(txn: TxnData, sender: Sender): string {
  const zk = dataObject(txn).zkapp;
  if (zk === undefined || zk === null) return sender.queue;
  if (typeof zk !== "string") throw new WorkerError(`${txn.type}: data must be a JSON object with an optional string zkapp`, { permanent: true });
  return zk;
}

/**
 * build makes the unsigned transaction of an attempt: the zkApp call of the
 * type, from the sender, with the nonce and fee given and the uid as memo.
 * It is deterministic, so its errors are permanent.
 */
export function build(txn: TxnData, sender: Sender): Tx {
  const m = zkMethods[txn.type];
  if (!m) throw new WorkerError(`this worker has no call for type "${txn.type}"`, { permanent: true });
  const data = dataObject(txn);
  const zkapp = zkAppOf(txn, sender);
  let args: Record<string, unknown>;
  if (m.method === "deploy") {
    const state: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) if (k !== "zkapp") state[k] = v;
    state.kind = m.kind;
    args = { zkapp, state };
  } else {
    args = { zkapp, key: m.key, value: new RawJSON(txn.dataJSON ?? "{}") };
  }
  return { from: sender.accountId, nonce: sender.nonce, fee: sender.fee, contract: "zkapp", method: m.method, argsText: stringifyJSON(args), memo: txn.uid };
}

// permanentCodes are the chain's errors no retry can change: a
// transaction that can never be accepted as built.
const permanentCodes = new Set(["invalid_tx", "bad_signature", "unknown_contract", "unknown_method"]);

/**
 * votingWorker is a worker of the voting flow. With a key, it is a
 * sender's worker: it signs and sends each dispatch to the chain. It
 * always builds (a type's worker), and its onSuccess reads the zkApp's
 * state into the record's result.
 */
export function votingWorker(chain: DevchainClient, key?: Key, log: (msg: string, f: Record<string, unknown>) => void = () => {}): WorkerHandlers {
  const handlers: WorkerHandlers = {
    build: ({ txnData, sender }) => build(txnData, sender),
    async onSuccess({ txnData, sender, result, signal }): Promise<TxnResult> {
      const state = await chain.call("zkapp", "get", { zkapp: zkAppOf(txnData, sender) }, signal);
      log("done", { uid: txnData.uid, hash: result.hash });
      return { hash: result.hash, done: state };
    },
    onFailure({ txnData, result }): TxnResult {
      log("failed", { uid: txnData.uid, hash: result.hash, reason: result.error });
      return { hash: result.hash };
    },
  };
  if (key) {
    handlers.dispatch = async ({ txnData, sender, signal }): Promise<TxnResult> => {
      if (sender.accountId !== key.address) {
        throw new WorkerError(`this worker holds the key of ${key.address}, not of ${sender.accountId}`, { permanent: true });
      }
      const { tx, hash } = signTx(build(txnData, sender), key);
      // A repeated dispatch builds the same transaction and hash: answer
      // it without sending again when the chain knows it.
      const st = await chain.txStatus(hash, signal).catch(() => undefined);
      if (st && (st.state === "pending" || st.state === "included")) {
        log("dispatch again: already sent", { uid: txnData.uid, hash, state: st.state });
        return { hash };
      }
      try {
        await chain.sendTx(tx, signal);
      } catch (err) {
        const code = (err as { code?: string }).code ?? "";
        log("dispatch: send failed", { uid: txnData.uid, hash, code, err: String(err) });
        throw new WorkerError((err as Error).message, { code: code || undefined, permanent: permanentCodes.has(code), hash });
      }
      log("dispatched", { uid: txnData.uid, type: txnData.type, nonce: String(sender.nonce), fee: sender.fee, hash });
      return { hash };
    };
  }
  return handlers;
}

export { txHash };
