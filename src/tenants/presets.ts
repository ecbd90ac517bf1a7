import type { ScanPreset } from "../scanner/schemas.js";
import type { ScannerTenant } from "./index.js";

const TTL_MS = 10 * 60_000;
const cache = new Map<string, { at: number; presets: Promise<ScanPreset[]> }>();

/**
 * The project's scan presets (spec §Scan presets, `GET /projects/{projectId}/scan-presets`), cached for 10
 * minutes per project: the launch needs the preset's `name` to find its own scan in the scan list after a
 * crash.
 */
export function presetsOf(tenant: ScannerTenant, now = Date.now()): Promise<ScanPreset[]> {
  const hit = cache.get(tenant.projectId);
  if (hit && now - hit.at < TTL_MS) return hit.presets;
  const presets = tenant.client.listPresets(tenant.projectId);
  cache.set(tenant.projectId, { at: now, presets });
  presets.catch(() => cache.delete(tenant.projectId));
  return presets;
}

/** Forgets cached presets (tests). */
export function clearPresetCache(): void {
  cache.clear();
}
