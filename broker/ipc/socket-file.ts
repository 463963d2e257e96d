/**
 * Puts a listening net.Server on a Unix socket path safely.
 *
 * - Never a permission window: the socket is bound inside a fresh 0700 directory next to the final
 *   path, given its group and mode there, and only then hard-linked into place. No process ever
 *   sees the final path with the umask's default mode. (process.umask would also work but is
 *   process-wide and unavailable in worker threads.)
 * - Never two brokers on one path: an existing socket that accepts a connection means another
 *   broker is listening (error); one that refuses is a stale file from a crash and is removed.
 *   `link` fails if the path reappeared in between, so two brokers starting at once cannot both win.
 * - Never deletes what is not ours: a non-socket at the path is an error, and `unlinkIfOurs` removes
 *   the path only while it is still the inode we created.
 * The parent directory is created 0700 when missing; an existing one is left as it is (the hardened
 * deployment shares a group-readable directory on purpose).
 */
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { connect, type Server } from "node:net";
import { dirname, join, resolve, sep } from "node:path";
import { AoError } from "../../common/index.js";
import { IpcErrors } from "./errors.js";
import { IPC_DEFAULTS } from "./ipc-settings.js";

/** sockaddr_un.sun_path is 108 bytes on Linux, including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export interface ListenOnSocketFileOptions {
  readonly server: Server;
  readonly path: string;
  readonly mode: number;
  /** Group name or gid to own the socket (hardened deployment). */
  readonly group?: string | number | undefined;
  /** How long a connect probe of an existing socket may take. @defaultValue 1000 */
  readonly probeTimeoutMs?: number | undefined;
}

export interface SocketFile {
  readonly path: string;
  /** Removes the path if it is still the socket we created; never throws. */
  unlinkIfOurs(): void;
}

export async function listenOnSocketFile(options: ListenOnSocketFileOptions): Promise<SocketFile> {
  const path = resolve(options.path);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    throw unusable(
      `socket path ${path} is ${Buffer.byteLength(path)} bytes; Unix sockets allow at most ${MAX_SOCKET_PATH_BYTES}: choose a shorter --socket`,
    );
  }
  const gid = options.group === undefined ? undefined : resolveGroup(options.group);
  const parent = dirname(path);
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw unusable(`cannot create the socket directory ${parent}: ${(cause as Error).message}`, cause);
  }
  await removeStaleSocket(path, options.probeTimeoutMs ?? IPC_DEFAULTS.socketProbeTimeoutMs);

  // `${parent}/.` + six random characters: a hidden sibling of the socket (join would drop the ".").
  const privateDir = mkdtempSync(`${parent}${sep}.`);
  const tmpPath = join(privateDir, "s");
  try {
    await listen(options.server, tmpPath);
    if (gid !== undefined) chownSync(tmpPath, -1, gid);
    chmodSync(tmpPath, options.mode);
    try {
      linkSync(tmpPath, path);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST") throw inUse(path);
      throw unusable(`cannot create the socket ${path}: ${(cause as Error).message}`, cause);
    }
  } catch (error) {
    options.server.close();
    throw error instanceof AoError
      ? error
      : unusable(`cannot listen on ${path}: ${(error as Error).message}`, error);
  } finally {
    rmSync(privateDir, { recursive: true, force: true });
  }
  const { ino, dev } = statSync(path);
  return {
    path,
    unlinkIfOurs() {
      try {
        const now = lstatSync(path);
        if (now.ino === ino && now.dev === dev) unlinkSync(path);
      } catch {
        // Already gone: nothing to do.
      }
    },
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(path, () => {
      server.off("error", fail);
      done();
    });
  });
}

async function removeStaleSocket(path: string, timeoutMs: number): Promise<void> {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw unusable(`${path} exists and is not a socket; refusing to replace it`);
  const probe = await probeSocket(path, timeoutMs);
  if (probe === "listening") throw inUse(path);
  if (probe !== "refused") throw unusable(`cannot check the existing socket ${path}: ${probe}`);
  try {
    unlinkSync(path);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ENOENT") {
      throw unusable(`cannot remove the stale socket ${path}: ${(cause as Error).message}`, cause);
    }
  }
}

/** "listening", "refused" (stale file) or the error text. Never throws. */
export function probeSocket(path: string, timeoutMs: number): Promise<string> {
  return new Promise((done) => {
    const socket = connect(path);
    const finish = (result: string) => {
      socket.destroy();
      done(result);
    };
    socket.setTimeout(timeoutMs, () => finish("listening"));
    socket.once("connect", () => finish("listening"));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      finish(error.code === "ECONNREFUSED" || error.code === "ENOENT" ? "refused" : error.message),
    );
  });
}

/** A gid, or a group name looked up in /etc/group (Node has no getgrnam). */
function resolveGroup(group: string | number): number {
  if (typeof group === "number") return group;
  if (/^\d+$/.test(group)) return Number(group);
  let text = "";
  try {
    text = readFileSync("/etc/group", "utf8");
  } catch {
    // Falls through to "no such group".
  }
  for (const line of text.split("\n")) {
    const [name, , gid] = line.split(":");
    if (name === group && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  throw unusable(`no such group "${group}" (looked in /etc/group); give a gid instead`);
}

function inUse(path: string): AoError {
  return new AoError(IpcErrors.AO_ERR_IPC_SOCKET_IN_USE, `another broker is listening on ${path}`, {
    data: { socket: path },
  });
}

function unusable(message: string, cause?: unknown): AoError {
  return new AoError(IpcErrors.AO_ERR_IPC_SOCKET_UNUSABLE, message, cause === undefined ? {} : { cause });
}
