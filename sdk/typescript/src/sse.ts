// A reader of server-sent events (the HTML standard's event stream) over
// fetch and a ReadableStream: what the node's streams answer
// (text/event-stream).

/** One server-sent event. */
export interface SSEEvent {
  /** The event's type: "message" unless the stream names one. */
  event: string;
  /** The data lines, joined by "\n". */
  data: string;
  /** The last event id the stream set ("" when none). */
  id: string;
  /** The reconnection time the stream asked for, in ms, when it did. */
  retry?: number;
}

/**
 * readSSE parses an event stream (a response body) into events, as the
 * HTML standard's event-stream interpretation does: lines end in \n, \r
 * or \r\n; ":" starts a comment; a blank line dispatches the event; an
 * event without data lines is not dispatched; a final event without its
 * blank line is dropped.
 */
export async function* readSSE(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SSEEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  let buf = "";
  let first = true;
  let event = "";
  let data: string[] = [];
  let id = "";
  let retry: number | undefined;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) return;
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      if (first && buf.length > 0) {
        if (buf.charCodeAt(0) === 0xfeff) buf = buf.slice(1);
        first = false;
      }
      for (;;) {
        const m = /\r\n|\r|\n/.exec(buf);
        if (!m) break;
        // A lone \r at the end of the buffer may be half of \r\n.
        if (m[0] === "\r" && m.index === buf.length - 1) break;
        const line = buf.slice(0, m.index);
        buf = buf.slice(m.index + m[0].length);
        if (line === "") {
          if (data.length > 0) {
            const ev: SSEEvent = { event: event || "message", data: data.join("\n"), id };
            if (retry !== undefined) ev.retry = retry;
            yield ev;
          }
          event = "";
          data = [];
          retry = undefined;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let val = colon < 0 ? "" : line.slice(colon + 1);
        if (val.startsWith(" ")) val = val.slice(1);
        switch (field) {
          case "event":
            event = val;
            break;
          case "data":
            data.push(val);
            break;
          case "id":
            if (!val.includes("\0")) id = val;
            break;
          case "retry":
            if (/^[0-9]+$/.test(val)) retry = Number(val);
            break;
        }
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}
