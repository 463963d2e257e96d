/**
 * `shim-helper.js notice`: the shell shim starts this when gh has run for a few seconds (and again
 * every 30 s while it runs). It asks the broker for its budget report; when a bucket gh may be
 * waiting on is spent it prints one line on gh's stderr saying how long the wait is, then keeps
 * watching (quietly) while the wait lasts and gh runs. When nothing is spent it exits at once, so
 * a long `gh run watch` costs one short Node run every 30 s, not a resident process.
 */
import { type BrokerClient, connectBroker } from "../client/index.js";
import { budgetNotice, type NoticeBudget } from "./core/budget-notice.js";

export interface BudgetWaitNoticeOptions {
  readonly socket: string;
  /** gh's pid: watching stops when it is gone. */
  readonly pid: number;
  /** @defaultValue 5000 */
  readonly pollMs?: number | undefined;
  /** Stop after this long whatever happens. @defaultValue 3600000 */
  readonly maxMs?: number | undefined;
  /** @defaultValue process.stderr.write */
  readonly stderr?: ((text: string) => void) | undefined;
  /** @defaultValue Date.now */
  readonly now?: (() => number) | undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function budgetWaitNotice(options: BudgetWaitNoticeOptions): Promise<number> {
  const write = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const now = options.now ?? Date.now;
  const started = now();
  let client: BrokerClient;
  try {
    client = await connectBroker({
      socketPath: options.socket,
      clientName: "ao-broker-shim",
      connectTimeoutMs: 2000,
    });
  } catch {
    return 0;
  }
  const said = new Set<string>();
  try {
    while (alive(options.pid) && now() - started < (options.maxMs ?? 3600_000)) {
      const notice = budgetNotice((await client.budget()) as NoticeBudget, now());
      if (!notice) return 0;
      if (!said.has(notice.key)) {
        said.add(notice.key);
        write(`${notice.message}\n`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 5000));
    }
    return 0;
  } catch {
    return 0;
  } finally {
    await client.close();
  }
}
