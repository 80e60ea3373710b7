import { CreateStoreTables1795305600000 } from './1795305600000-create-store-tables.js';
import { CreateToolExecutionAndWorkflowTables1795392000000 } from './1795392000000-create-tool-execution-and-workflow-tables.js';
import { CreateAuditAndRememberedApprovalTables1795478400000 } from './1795478400000-create-audit-and-remembered-approval-tables.js';
import { AddThreadLeases1795564800000 } from './1795564800000-add-thread-leases.js';
import { AddClaimEpochAndAuditHead1795651200000 } from './1795651200000-add-claim-epoch-and-audit-head.js';
import { CreateJobsTable1795737600000 } from './1795737600000-create-jobs-table.js';
import { NotifyChanges1795824000000 } from './1795824000000-notify-changes.js';
import { AddAuditToolDefinitionHash1795910400000 } from './1795910400000-add-audit-tool-definition-hash.js';
import { AddAuditInteractionId1795996800000 } from './1795996800000-add-audit-interaction-id.js';
import { AddThreadAuditChains1796083200000 } from './1796083200000-add-thread-audit-chains.js';
import { AddInteractionOrder1796169600000 } from './1796169600000-add-interaction-order.js';
import { AddCommitFunction1796256000000 } from './1796256000000-add-commit-function.js';
import { CompactRememberedApprovals1796342400000 } from './1796342400000-compact-remembered-approvals.js';
import { AddInteractionQuorum1796428800000 } from './1796428800000-add-interaction-quorum.js';
import { RepairJobQueueSchema1796515200000 } from './1796515200000-repair-job-queue-schema.js';
import { FenceClaimEnd1796601600000 } from './1796601600000-fence-claim-end.js';
import { JobsInOneCall1796688000000 } from './1796688000000-jobs-in-one-call.js';
import { NotifyQuorumChanges1796774400000 } from './1796774400000-notify-quorum-changes.js';
import { SqliteFewerPagesPerCommit1796860800000 } from './1796860800000-sqlite-fewer-pages-per-commit.js';
import { LeanCommit1796947200000 } from './1796947200000-lean-commit.js';
import { CarryRememberedApprovals1797033600000 } from './1797033600000-carry-remembered-approvals.js';

/** The store's migrations, oldest first. Append new ones; never edit one that shipped. */
export const STORE_MIGRATIONS = [
  CreateStoreTables1795305600000,
  CreateToolExecutionAndWorkflowTables1795392000000,
  CreateAuditAndRememberedApprovalTables1795478400000,
  AddThreadLeases1795564800000,
  AddClaimEpochAndAuditHead1795651200000,
  CreateJobsTable1795737600000,
  NotifyChanges1795824000000,
  AddAuditToolDefinitionHash1795910400000,
  AddAuditInteractionId1795996800000,
  AddThreadAuditChains1796083200000,
  AddInteractionOrder1796169600000,
  AddCommitFunction1796256000000,
  CompactRememberedApprovals1796342400000,
  AddInteractionQuorum1796428800000,
  RepairJobQueueSchema1796515200000,
  FenceClaimEnd1796601600000,
  JobsInOneCall1796688000000,
  NotifyQuorumChanges1796774400000,
  // Before LeanCommit: TypeORM runs migrations in the order of their timestamps.
  SqliteFewerPagesPerCommit1796860800000,
  LeanCommit1796947200000,
  CarryRememberedApprovals1797033600000,
];
