import type { z } from 'zod';
import type { MemoryRecord, MemorySettings, MemoryVersionRecord } from '../../server/ports/memories.js';
import type { WriteReceipt } from '../../server/ports/write-queue.js';
import type { MemoryWriteInput } from '../../server/services/memories/memory-service.js';
import type { UsageReport } from '../../server/services/usage.js';
import type { createMemoryInput, memoryDetailOutput, memoryVersionOutput, usageOutput, writeReceiptOutput } from './schemas.js';

/** The memory and usage routes' wire form (snake_case) of what the memory and usage services take and return. */

/** A create or update body as the memory service takes it. */
export function fromWriteBody(input: z.output<typeof createMemoryInput>): MemoryWriteInput {
  return {
    title: input.title,
    content: input.content,
    tags: input.tags,
    sensitivity: input.sensitivity,
    type: input.type,
    namespace: input.namespace,
    agentId: input.agent_id,
    metadata: input.metadata,
  };
}

export function toWriteReceipt(r: WriteReceipt): z.output<typeof writeReceiptOutput> {
  return { memory_id: r.memoryId, status: 'queued', version: r.version, pending_count: r.pendingCount };
}

export function toMemoryDetail(m: MemoryRecord, tenantPolicy: MemorySettings['contradictionPolicy']): z.output<typeof memoryDetailOutput> {
  return {
    memory_id: m.id,
    tenant_id: m.tenantId,
    namespace: m.namespace,
    agent_id: m.agentId,
    type: m.type,
    title: m.title,
    content: m.content,
    tags: m.tags,
    metadata: m.metadata,
    sensitivity: m.sensitivity,
    sensitivity_reasons: m.sensitivityReasons,
    status: m.status,
    version: m.version,
    consolidated_version: m.committedVersion,
    dirty: m.pendingCount > 0,
    pending_count: m.pendingCount,
    contradiction_status: m.contradictionStatus,
    contradiction_policy: m.contradictionPolicy ?? tenantPolicy,
    conflicts_with: m.conflictsWith,
    superseded_by: m.supersededBy,
    merged_into: m.mergedInto,
    injection_flagged: m.injectionFlagged,
    injection_patterns: m.injectionPatterns,
    injection_score: m.injectionScore,
    quality: m.quality,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function toMemoryVersion(v: MemoryVersionRecord): z.output<typeof memoryVersionOutput> {
  return {
    memory_id: v.memoryId,
    version: v.version,
    change: v.change,
    title: v.title,
    content: v.content,
    tags: v.tags,
    type: v.type,
    agent_id: v.agentId,
    metadata: v.metadata,
    sensitivity: v.sensitivity,
    status: v.status,
    rolled_back_to: v.rolledBackTo,
    created_at: v.createdAt,
  };
}

export const toMemorySettings = (s: MemorySettings) => ({ contradiction_policy: s.contradictionPolicy, updated_at: s.updatedAt });

export function toUsage(u: UsageReport): z.output<typeof usageOutput> {
  return {
    memory_count: u.memoryCount,
    storage_used_bytes: u.storageUsedBytes,
    writes_current_period: u.writes,
    reads_current_period: u.reads,
    searches_current_period: u.searches,
    namespaces: u.namespaces,
    plan: u.plan,
    pending_writes: u.pendingWrites,
    period: u.period,
    period_ends_at: u.periodEndsAt,
    limits: u.limits,
  };
}
