// The errors of the node's API: every error answer is
// {"error":{"code","message"}} with a stable code.

/**
 * OrdoError is an error answer of an ordo node (or a devchain): its HTTP
 * status, the API's stable code (such as "idempotency_conflict" or
 * "not_found") and its human message. A network failure has status 0 and
 * code "network"; an answer that is not the API's error body keeps its
 * status, with code "http_<status>".
 */
export class OrdoError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body?: string,
    /** The JSON-RPC error code, for an error of a ptx_ call. */
    readonly rpcCode?: number,
  ) {
    super(message);
    this.name = "OrdoError";
  }
}

/** errorFromResponse reads a non-2xx answer into an OrdoError. */
export async function errorFromResponse(resp: Response): Promise<OrdoError> {
  const text = await resp.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (body && body.error && typeof body.error.code === "string") {
      return new OrdoError(resp.status, body.error.code, String(body.error.message ?? ""), text);
    }
  } catch {
    // not the API's error body
  }
  return new OrdoError(resp.status, `http_${resp.status}`, text.trim() || resp.statusText || `HTTP ${resp.status}`, text);
}
