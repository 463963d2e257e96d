/**
 * Pre-signed downloads (run logs, artifacts): after GitHub redirects gh to a blob host, gh asks the
 * gateway (its HTTP proxy) for that URL. The broker fetches it WITHOUT any credential — the URL
 * carries its own short-lived signature — and only from the configured blob hosts (the gateway
 * refuses every other host), without following further redirects.
 */
import { request } from "undici";

const MAX_BLOB_BYTES = 512 * 1024 * 1024;

export async function fetchBlob(
  url: string,
  timeoutMs: number,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  // undici's request() never follows redirects: a 302 is relayed to gh as it is.
  const res = await request(url, { method: "GET", headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BLOB_BYTES) {
      res.body.destroy();
      return {
        status: 502,
        headers: { "content-type": "text/plain" },
        body: Buffer.from("download larger than ao-broker relays"),
      };
    }
    chunks.push(chunk as Buffer);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { status: res.statusCode, headers, body: Buffer.concat(chunks) };
}
