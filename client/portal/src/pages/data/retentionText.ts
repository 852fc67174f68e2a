/** What each retention setting does, as the service enforces it (docs/portal-api.md, "Retention"). */
export const SUPERSEDED_EXPLANATION =
  'When a memory is updated, its earlier versions stay so it can be rolled back. With a limit, the hourly retention job permanently removes the versions that were replaced more than this many days ago. The current version, and the version that was current at the cutoff, always stay — so a rollback can only reach what is kept.';

export const DELETED_EXPLANATION =
  'Nothing waits on this setting: deleting a memory (with its versions, queued writes and search entries) or a knowledge object (with its log) is already immediate and permanent, and nothing is kept soft-deleted. The value is recorded as your stated ceiling, which the service always meets.';

export const JOB_EXPLANATION =
  'The retention job runs every hour and works through each tenant in small batches; every purge is recorded in the audit log as retention.purge, and every change here as retention.change.';
