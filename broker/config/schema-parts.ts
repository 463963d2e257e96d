/** Value types the settings schemas share (broker/config/config-schema.ts and `<folder>/*-settings.ts`). */
import { z } from "zod";

export const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "expected HOST:PORT, e.g. 127.0.0.1:7878");

export const fraction = z.number().min(0).max(0.9);
export const ms = z.number().int().min(0);
