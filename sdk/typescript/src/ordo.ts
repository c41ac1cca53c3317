// OrdoClient: the generated client of the node's API, with the calls an
// application makes most named for what they do.

import { GeneratedClient, type BatchResult, type IntakeRequest, type Transaction, type TransactionResponse } from "./generated/api.js";
import type { RequestOptions } from "./client.js";

/** An intent to submit: its queue, type and data, and an idempotency key (a retry with the same key and content is answered the same record). */
export type Intent = IntakeRequest;

/**
 * OrdoClient is a typed client of an ordo node: every operation of its
 * OpenAPI document (GeneratedClient), ptx_ under .ptx, and the intake and
 * reads below. Errors are OrdoError with the API's stable code.
 */
export class OrdoClient extends GeneratedClient {
  /** submit takes one intent in (POST /v1/transactions): its committed record. */
  async submit(intent: Intent, opts?: RequestOptions): Promise<Transaction> {
    return (await this.postV1Transactions({ body: intent }, opts)) as Transaction;
  }

  /**
   * submitMany takes up to 1000 intents in one request: each answered at
   * its position, a refused one with its error (a BatchResult each).
   */
  async submitMany(intents: Intent[], opts?: RequestOptions): Promise<BatchResult[]> {
    return (await this.postV1Transactions({ body: intents as never }, opts)) as BatchResult[];
  }

  /** transaction reads a record by uid (GET /v1/transactions/{uid}). */
  async transaction(uid: string, opts?: RequestOptions): Promise<Transaction> {
    const r: TransactionResponse = await this.getV1TransactionsUid({ uid }, opts);
    return r.transaction;
  }
}
