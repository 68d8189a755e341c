/** Every audit action name the server writes (documented in docs/security.md). */
export const AUDIT_ACTIONS = [
  'device.registration_requested',
  'device.approved',
  'device.rejected',
  'device.removed',
  'device.access_added',
  'device.access_removed',
  'device.moved_to_org',
  'device.exec',
  'device.file_read',
  'device.file_written',
  'device.files_synced',
  'device.forward_opened',
  'device.shell_opened',
  'device.docker_opened',
  'device.removed_from_org',
  'org.created',
  'org.deleted',
  'org.renamed',
  'org.member_added',
  'org.member_updated',
  'org.member_removed',
  'user.approved',
  'user.admin_granted',
  'user.subject_reset',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
