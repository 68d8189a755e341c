/** The catalog's remote execution and port forwarding operations. */
import { BATCH_TARGET, bool, defineOperation, num, optStr, route, str, strList } from './contract';
import { device, deviceStream, EXEC_LIMITS, FORWARD_ARGS, NO_NUL, SHELL_ARGS } from './route-params';
import { execResultSchema, forwardSessionSchema } from './result-schemas';
import { array, batched, integer, object, oneOf, string } from './schema-builders';

/** `device_exec`'s limits, which the server, the runtime, the CLI and the MCP tool all read from here. */
export const EXEC_DEFAULT_TIMEOUT_SECS = 30;
export const EXEC_MAX_TIMEOUT_SECS = 24 * 60 * 60;
const EXEC_COMMAND = strList('command and arguments', true, { minItems: 1, maxItems: 4096, maxLength: 32 * 1024, ...NO_NUL });
const EXEC_TIMEOUT = num('timeout in seconds', EXEC_DEFAULT_TIMEOUT_SECS, { exclusiveMinimum: 0, maximum: EXEC_MAX_TIMEOUT_SECS });

export const EXEC_OPERATIONS = [
  // Remote execution
  defineOperation({
    name: 'device_exec',
    http: route('POST', '/api/exec', { stdin: optStr("text written to the command's stdin, then closed") }),
    summary: 'Run a command on a device',
    batch: true,
    readOnly: false,
    capability: 'device:exec',
    params: { ...BATCH_TARGET, command: EXEC_COMMAND, timeout_secs: EXEC_TIMEOUT },
    result: batched(execResultSchema),
    limits: EXEC_LIMITS,
    /** `svc exec` streams stdin and output as they come; `svc shell` runs under the same capability. */
    routes: {
      stream: deviceStream('exec', 'device:exec', { command: EXEC_COMMAND, timeout_secs: EXEC_TIMEOUT, stdin: bool('stdin travels as STDIN frames (else it is closed at once)', false) }),
      shell: deviceStream('shell', 'device:exec', SHELL_ARGS),
    },
  }),
  defineOperation({
    name: 'docker_exec',
    summary: 'Run a container CLI command against the device engine',
    batch: false,
    readOnly: false,
    capability: 'device:exec',
    params: { device, args: strList('container CLI arguments'), timeout_secs: num('timeout in seconds', 60, { exclusiveMinimum: 0, maximum: EXEC_MAX_TIMEOUT_SECS }) },
    result: object({ stdout: string, stderr: string, exit_code: integer }),
    /** Per captured stream (the MCP tool's): `docker save` or `docker logs` can print without end. */
    limits: { outputCapBytes: 16 * 1024 * 1024 },
    /** One stream per connection the local container CLI makes to the device's engine. */
    routes: { stream: deviceStream('docker', 'device:exec', {}) },
  }),
  // Port forwarding
  defineOperation({
    name: 'forward_start',
    summary: 'Forward local ports or sockets to a device',
    batch: false,
    readOnly: false,
    capability: 'device:forward',
    params: { device, specs: strList('<local>:<remote> pairs') },
    result: object({ session_id: string, device: string, targets: array(string), status: oneOf('started') }),
    /** One stream per connection the local listener accepts. */
    routes: { stream: deviceStream('forward', 'device:forward', FORWARD_ARGS) },
  }),
  defineOperation({
    name: 'forward_stop',
    summary: 'Stop a forward session',
    batch: false,
    readOnly: false,
    capability: null,
    params: { session_id: str('forward session id') },
    result: object({ session_id: string, status: oneOf('stopped') }),
  }),
  defineOperation({ name: 'forward_list', summary: 'List forward sessions', batch: false, readOnly: true, capability: null, params: {}, result: array(forwardSessionSchema) }),
] as const;
