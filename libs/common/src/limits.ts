/** Limits that the server enforces and clients respect. Defaults come from the specification. */
export const LIMITS = {
  /** How long a pending registration request stays valid: the runtime's approval window. */
  registrationTtlMs: 60 * 60 * 1000,
  /** Largest `devices` array a [Batch] operation accepts. */
  maxBatchSize: 100,
  /** Largest JSON body the REST API accepts. */
  maxJsonBodyBytes: 64 * 1024,
  /** Deepest nesting of objects and arrays in a JSON body: far above any request (today 3 at most). */
  maxJsonDepth: 32,
  /** `device_audit_logs` default and ceiling for `max`. */
  auditLogsDefaultMax: 100,
  auditLogsMaxMax: 1000,
  /** Most audit entries one [Batch] device_audit_logs answer holds, across all its devices. */
  auditLogsBatchMaxEntries: 5000,
  /** Most access entries (users and organizations) one device can be shared with. */
  maxSharesPerDevice: 100,
  /** Size ceilings for registration fields. */
  maxDeviceIdLength: 128,
  maxInfoFieldLength: 256,
} as const;

export const DEVICE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
