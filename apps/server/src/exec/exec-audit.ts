/** Audit details show the argv, never stdin, and stay short. */
const AUDIT_COMMAND_CHARS = 500;

/** The `device.exec` entry's details, for the REST call and the exec stream alike. */
export function execAuditDetails(command: string[]): string {
  const text = `exec: ${command.join(' ')}`;
  return text.length <= AUDIT_COMMAND_CHARS ? text : `${text.slice(0, AUDIT_COMMAND_CHARS)}… (${text.length} chars)`;
}
