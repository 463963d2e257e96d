/**
 * The way into the params schemas for code outside client/ (the broker's IPC server). A dynamic
 * import, so importing client/index.ts never loads zod: the gh shim's startup stays light, and a
 * bundler drops the schemas entirely from a bundle that never calls this.
 */
import type { ParamsSchemas } from "./protocol-schemas.js";

export interface ProtocolSchemas {
  readonly paramsSchemas: ParamsSchemas;
}

export async function loadProtocolSchemas(): Promise<ProtocolSchemas> {
  const { paramsSchemas } = await import("./protocol-schemas.js");
  return { paramsSchemas };
}
