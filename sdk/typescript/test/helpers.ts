// Helpers the end-to-end tests share: a loud skip when a binary is not
// given (a failure under CI=true), a free loopback port, a poll with a
// deadline.
import { createServer } from "node:net";

/**
 * need returns false when have is set; else, under CI=true, it throws, and
 * otherwise it prints and returns a loud skip message naming what and the
 * test that does not run.
 */
export function need(what: string, have: string | undefined, test: string): string | false {
  if (have) return false;
  if (process.env.CI === "true") throw new Error(`${what} must be set under CI=true`);
  const msg = `SKIPPED: ${what} is not set, so ${test} does not run (sdk/typescript/ci.sh sets it)`;
  console.error(`\n*** ${msg} ***\n`);
  return msg;
}

/** freePort returns a loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** waitFor polls cond every 50 ms until it holds or ms have passed. */
export async function waitFor<T>(what: string, ms: number, cond: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms}ms${last ? ` (last error: ${last})` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
