import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IpcServer, type IpcServerOptions } from "../../../broker/ipc/index.js";
import { isAoError } from "../../../common/index.js";
import { RawPeer, tempDir } from "./harness.js";

const dirs: string[] = [];
const servers: IpcServer[] = [];
const others: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close({ graceMs: 0 });
  for (const other of others.splice(0)) other.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

function ipcServer(socketPath: string, extra: Partial<IpcServerOptions> = {}): IpcServer {
  const server = new IpcServer({
    socketPath,
    brokerInfo: { version: "t", pid: process.pid, gatewayUrl: "http://x", socket: socketPath },
    ...extra,
  });
  servers.push(server);
  return server;
}

/** A crash leaves the socket file behind: listen, then close the handle without unlinking. */
async function staleSocket(path: string): Promise<void> {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(path, resolve));
  // Keep a hard link so libuv's unlink-on-close leaves a socket file nobody listens on.
  const keep = `${path}.keep`;
  linkSync(path, keep);
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  renameSync(keep, path);
}

describe("IPC socket file", () => {
  describe("when the broker starts", () => {
    it("creates the socket 0600 inside a new 0700 directory", async () => {
      const path = join(dir(), "nested", "state", "broker.sock");
      await ipcServer(path).start();
      expect(statSync(path).isSocket()).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
      const peer = await RawPeer.ready(path);
      peer.end();
    });

    it("leaves no temporary files next to the socket or its directory", async () => {
      const d = dir();
      const parent = join(d, "state");
      await ipcServer(join(parent, "broker.sock")).start();
      expect(readdirSync(parent)).toEqual(["broker.sock"]);
      expect(readdirSync(d)).toEqual(["state"]);
    });

    it("applies another mode and a group for the hardened deployment", async () => {
      const path = join(dir(), "broker.sock");
      await ipcServer(path, { mode: 0o660, group: process.getgid?.() ?? 0 }).start();
      expect(statSync(path).mode & 0o777).toBe(0o660);
      expect(statSync(path).gid).toBe(process.getgid?.() ?? 0);
    });

    it("resolves a group name from /etc/group and rejects an unknown one", async () => {
      const path = join(dir(), "broker.sock");
      await ipcServer(path, { group: "root" }).start();
      expect(statSync(path).gid).toBe(0);
      const error = await ipcServer(join(dir(), "b.sock"), { group: "no-such-group-xyz" })
        .start()
        .catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_SOCKET_UNUSABLE")).toBe(true);
      expect(String(error)).toMatch(/no such group "no-such-group-xyz"/);
    });

    it("leaves an existing parent directory's mode alone", async () => {
      const d = dir();
      const shared = join(d, "shared");
      mkdirSync(shared, { mode: 0o750 });
      await ipcServer(join(shared, "broker.sock")).start();
      expect(statSync(shared).mode & 0o777).toBe(0o750);
    });
  });

  describe("when something is already at the path", () => {
    it("replaces a stale socket left by a crash", async () => {
      const path = join(dir(), "broker.sock");
      await staleSocket(path);
      expect(lstatSync(path).isSocket()).toBe(true);
      await ipcServer(path).start();
      const peer = await RawPeer.ready(path);
      expect(await peer.call(1, "events.subscribe", {})).toMatchObject({ result: { topics: ["*"] } });
      peer.end();
    });

    it("refuses to start when another broker is listening", async () => {
      const path = join(dir(), "broker.sock");
      await ipcServer(path).start();
      const error = await ipcServer(path)
        .start()
        .catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_SOCKET_IN_USE")).toBe(true);
      expect((error as Error).message).toBe(`another broker is listening on ${path}`);
      const peer = await RawPeer.ready(path);
      peer.end();
    });

    it("refuses when a live non-broker process listens there", async () => {
      const path = join(dir(), "broker.sock");
      const other = createServer((socket) => socket.end());
      others.push(other);
      await new Promise<void>((resolve) => other.listen(path, resolve));
      const error = await ipcServer(path)
        .start()
        .catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_SOCKET_IN_USE")).toBe(true);
    });

    it("refuses to replace a file that is not a socket", async () => {
      const path = join(dir(), "broker.sock");
      writeFileSync(path, "precious");
      const error = await ipcServer(path)
        .start()
        .catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_SOCKET_UNUSABLE")).toBe(true);
      expect((error as Error).message).toMatch(/exists and is not a socket/);
      expect(existsSync(path)).toBe(true);
    });

    it("refuses a path longer than a Unix socket allows", async () => {
      const path = join(dir(), "x".repeat(120), "broker.sock");
      const error = await ipcServer(path)
        .start()
        .catch((e: unknown) => e);
      expect(isAoError(error, "AO_ERR_IPC_SOCKET_UNUSABLE")).toBe(true);
      expect((error as Error).message).toMatch(/at most 107: choose a shorter --socket/);
    });
  });

  describe("when the broker closes", () => {
    it("removes its socket file", async () => {
      const path = join(dir(), "broker.sock");
      const server = ipcServer(path);
      await server.start();
      await server.close();
      expect(existsSync(path)).toBe(false);
    });

    it("does not remove a socket that replaced its own", async () => {
      const path = join(dir(), "broker.sock");
      const first = ipcServer(path);
      await first.start();
      unlinkSync(path);
      const second = ipcServer(path);
      await second.start();
      await first.close();
      expect(lstatSync(path).isSocket()).toBe(true);
      const peer = await RawPeer.ready(path);
      peer.end();
    });
  });
});
