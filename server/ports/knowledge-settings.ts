/**
 * Per-tenant settings of the Knowledge API (issue #23): which outside engines a tenant has opted into.
 * Read by the web engine on every run, written by `PUT /settings/knowledge`. A tenant that never saved
 * settings reads the defaults (every outside engine off).
 */
export interface KnowledgeSettings {
  /** The web engine may fetch the object's own website (off unless the tenant turns it on). */
  webEnrichment: boolean;
  /** When the tenant last saved them; null for the defaults. */
  updatedAt: string | null;
}

export const DEFAULT_KNOWLEDGE_SETTINGS: Readonly<KnowledgeSettings> = { webEnrichment: false, updatedAt: null };

export interface KnowledgeSettingsStore {
  /** The tenant's settings, or the defaults when it has none. */
  get(tenantId: string): Promise<KnowledgeSettings>;
  /** Replaces the tenant's settings (insert or update) and returns them as stored. */
  put(tenantId: string, settings: Omit<KnowledgeSettings, 'updatedAt'>, at: string): Promise<KnowledgeSettings>;
}
