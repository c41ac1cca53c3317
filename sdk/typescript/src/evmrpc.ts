// A small client of an EVM chain's JSON-RPC: what a worker that signs EVM
// transactions needs to send them and to find them again. A refusal of a
// send carries the code ordo's EVM backend gives it (internal/chain/evm,
// senderrors.go).

import { anySignal } from "./devchain.js";
import { OrdoError } from "./errors.js";
import { keccak256, normalAddress, type BytesLike, type UintLike } from "./evm.js";

/** EVMTxStatus is what the chain knows of a transaction hash. */
export interface EVMTxStatus {
  hash: string;
  /** included: in a block (success from its receipt); pending: in a pool; unknown: neither. */
  state: "included" | "pending" | "unknown";
  success?: boolean;
  height?: bigint;
  /** The sender the chain recovered from the signature, when it knows the transaction. */
  from?: string;
}

/**
 * sendErrors maps go-ethereum's refusals of eth_sendRawTransaction to
 * ordo's codes: the first fragment the message contains wins. Any other
 * refusal is "rejected".
 */
const sendErrors: [string, string | null][] = [
  ["already known", null], // the node has this very transaction: a resend
  ["nonce too low", "nonce_too_low"],
  ["replacement transaction underpriced", "replacement_underpriced"],
  ["transaction underpriced", "fee_too_low"],
  ["below minimum", "fee_too_low"],
  ["max fee per gas less than block base fee", "fee_too_low"],
  ["insufficient funds", "insufficient_funds"],
  ["txpool is full", "mempool_full"],
];

/**
 * EVMClient calls an EVM node's JSON-RPC over HTTP. A JSON-RPC error is an
 * OrdoError with code "rpc_error" and the JSON-RPC code in rpcCode; a
 * network failure has status 0 and code "network".
 */
export class EVMClient {
  private id = 0;
  constructor(
    readonly url: string,
    private readonly opts: { timeoutMs?: number } = {},
  ) {}

  /** rpc calls one method and returns its result. */
  async rpc(method: string, params: unknown[], signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 30_000);
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params });
    let resp: Response;
    let text: string;
    try {
      resp = await fetch(this.url, { method: "POST", headers: { "Content-Type": "application/json" }, body, signal: signal ? anySignal([signal, timeout]) : timeout });
      text = await resp.text();
    } catch (err) {
      throw new OrdoError(0, "network", `${method}: ${(err as Error).message}`);
    }
    let out: { result?: unknown; error?: { code?: number; message?: string } };
    try {
      out = JSON.parse(text);
    } catch {
      throw new OrdoError(resp.status, `http_${resp.status}`, `${method}: not a JSON-RPC answer: ${text.slice(0, 200)}`, text);
    }
    if (out.error) throw new OrdoError(resp.status, "rpc_error", `${method}: ${out.error.message ?? "error"}`, text, out.error.code);
    if (!resp.ok) throw new OrdoError(resp.status, `http_${resp.status}`, `${method}: HTTP ${resp.status}`, text);
    return out.result ?? null;
  }

  /** chainId is eth_chainId. */
  async chainId(signal?: AbortSignal): Promise<bigint> {
    return BigInt((await this.rpc("eth_chainId", [], signal)) as string);
  }

  /** nonce is the account's next nonce (eth_getTransactionCount at "pending"). */
  async nonce(address: string, signal?: AbortSignal): Promise<bigint> {
    return BigInt((await this.rpc("eth_getTransactionCount", [normalAddress(address), "pending"], signal)) as string);
  }

  /** estimateGas is eth_estimateGas of a call from an account. */
  async estimateGas(call: { from: string; to: string | null; data?: BytesLike; value?: UintLike }, signal?: AbortSignal): Promise<bigint> {
    const c: Record<string, string> = { from: normalAddress(call.from) };
    if (call.to !== null) c.to = normalAddress(call.to);
    if (call.data !== undefined) c.data = typeof call.data === "string" ? call.data : "0x" + Buffer.from(call.data).toString("hex");
    if (call.value !== undefined) c.value = "0x" + BigInt(call.value).toString(16);
    return BigInt((await this.rpc("eth_estimateGas", [c], signal)) as string);
  }

  /**
   * sendRawTransaction sends a signed transaction (signEVMTx's raw) and
   * returns its hash. "already known" is a success: the node has it. A
   * refusal is an OrdoError with ordo's code (nonce_too_low, fee_too_low,
   * replacement_underpriced, insufficient_funds, mempool_full, rejected).
   */
  async sendRawTransaction(raw: string, signal?: AbortSignal): Promise<string> {
    const hash = keccak256(raw);
    try {
      await this.rpc("eth_sendRawTransaction", [raw], signal);
    } catch (err) {
      if (!(err instanceof OrdoError) || err.code !== "rpc_error") throw err;
      const text = err.message.toLowerCase();
      const hit = sendErrors.find(([fragment]) => text.includes(fragment));
      if (hit && hit[1] === null) return hash;
      throw new OrdoError(err.status, hit ? hit[1]! : "rejected", err.message, err.body, err.rpcCode);
    }
    return hash;
  }

  /** txStatus reports a transaction: included (from its receipt), pending, or unknown. */
  async txStatus(hash: string, signal?: AbortSignal): Promise<EVMTxStatus> {
    if (!/^0x[0-9a-f]{64}$/.test(hash)) return { hash, state: "unknown" };
    const r = (await this.rpc("eth_getTransactionReceipt", [hash], signal)) as { status?: string; blockNumber?: string; from?: string } | null;
    if (r && r.blockNumber) {
      return { hash, state: "included", success: r.status === "0x1", height: BigInt(r.blockNumber), from: r.from?.toLowerCase() };
    }
    const t = (await this.rpc("eth_getTransactionByHash", [hash], signal)) as { from?: string } | null;
    if (t) return { hash, state: "pending", from: t.from?.toLowerCase() };
    return { hash, state: "unknown" };
  }
}
