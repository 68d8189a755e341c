/** The catalog's device management and device access operations (catalog.ts gathers every group). */
import { answer, BATCH_TARGET, defineOperation, DEVICE_REF, num, optStr, route, str, subRoute } from './contract';
import { device, role } from './route-params';
import { accessEntrySchema, auditLogsSchema, deviceListItemSchema, deviceListPageSchema, deviceRenameSchema, deviceStatusSchema } from './result-schemas';
import { array, batched, boolean, object, oneOf, status, string } from './schema-builders';
import { CAPABILITIES, TOOL_ROLES } from '../roles';
import { LIMITS } from '../limits';

/** The by-path reads look any reference up (their service decides): one too long names no device, a 404 like any other. */
const ANY_DEVICE = str('device name or id');
const INSTANT = { maxLength: 40 } as const;
const AUDIT_RANGE = {
  since: optStr('ISO 8601 lower bound (inclusive)', INSTANT),
  until: optStr('ISO 8601 upper bound (exclusive)', INSTANT),
  max: num('maximum number of entries', LIMITS.auditLogsDefaultMax, { integer: true, minimum: 1, maximum: LIMITS.auditLogsMaxMax, rule: `a whole number between 1 and ${LIMITS.auditLogsMaxMax}` }),
};

/** GET /devices beyond the spec's tool: with `limit` or `cursor` the answer is a DeviceListPage. */
const DEVICE_LIST_EXTRA = {
  limit: num('page size (1-1000)', undefined, { integer: true, minimum: 1, maximum: 1000, rule: 'a whole number between 1 and 1000' }),
  cursor: optStr('next_cursor of the previous page', { maxLength: 600 }),
  status: optStr('only devices in this state', { enum: ['online', 'offline', 'pending'] }),
  owner: optStr('owner: user:<email>, org:<id>, an e-mail address or an organization id', { maxLength: 300 }),
  name: optStr('name prefix (case-sensitive)', { minLength: 1, maxLength: 256 }),
};

export const DEVICE_OPERATIONS = [
  // Device management
  defineOperation({
    name: 'devices_list',
    http: { ...route('GET', '/devices', DEVICE_LIST_EXTRA), alsoAnswers: deviceListPageSchema },
    summary: 'List devices and pending registrations you can access',
    batch: false,
    readOnly: true,
    capability: null,
    params: {},
    result: array(deviceListItemSchema),
  }),
  defineOperation({
    name: 'devices_approve',
    http: { ...route('POST', '/devices/approve', { request_id: optStr('the same as device: a registration request id', { minLength: 1, maxLength: 128 }) }), either: ['device', 'request_id'] },
    summary: 'Approve a pending device registration',
    batch: false,
    readOnly: false,
    capability: 'device:own',
    params: { device: str('registration request id or device id', { minLength: 1, maxLength: 128 }) },
    result: object({ status: oneOf('approved'), device_id: string, fingerprint: string }),
  }),
  defineOperation({
    name: 'devices_reject',
    http: route('POST', '/devices/reject'),
    summary: 'Reject a pending registration or remove an approved device',
    batch: false,
    readOnly: false,
    capability: 'device:own',
    params: { device: str('device name or id', { minLength: 1, maxLength: 128 }) },
    result: status('rejected'),
  }),
  defineOperation({
    name: 'device_rename',
    http: route('PATCH', '/devices/{device}'),
    summary: 'Rename a device',
    batch: false,
    readOnly: false,
    capability: 'device:manage',
    extension: true,
    params: { device, name: str('new display name: 1-64 characters, no control characters, no white space at either end', { maxLength: 64 }) },
    result: deviceRenameSchema,
  }),
  defineOperation({ name: 'device_show', http: route('GET', '/devices/{device}'), summary: 'One device, as devices_list lists it', batch: false, readOnly: true, capability: 'device:view', tool: false, params: { device }, result: deviceListItemSchema }),
  defineOperation({
    name: 'device_capabilities',
    http: route('GET', '/devices/{device}/capabilities'),
    summary: 'What the caller may do with a device, as AccessPolicy decides it',
    batch: false,
    readOnly: true,
    capability: 'device:view',
    tool: false,
    params: { device },
    /** AccessPolicy's answer, so a client shows only the controls that will work. */
    result: object({ device_id: string, role: oneOf(...TOOL_ROLES), owner: boolean, capabilities: array(oneOf(...CAPABILITIES)) }),
  }),
  defineOperation({
    name: 'device_status',
    http: route('POST', '/devices/status'),
    summary: 'Connection status, health, uptime and last contact',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET },
    result: batched(deviceStatusSchema),
    routes: { one: subRoute('GET', '/devices/{device}/status', 'device:view', { device: ANY_DEVICE }, { answer: answer(deviceStatusSchema) }) },
  }),
  defineOperation({
    name: 'device_audit_logs',
    http: route('POST', '/devices/audit-logs'),
    summary: 'Audit log entries of a device',
    batch: true,
    readOnly: true,
    capability: 'device:view',
    params: { ...BATCH_TARGET, ...AUDIT_RANGE },
    result: batched(auditLogsSchema),
    routes: { one: subRoute('GET', '/devices/{device}/audit-logs', 'device:view', { device: ANY_DEVICE, ...AUDIT_RANGE }, { answer: answer(auditLogsSchema) }) },
  }),
  // Device access control
  defineOperation({ name: 'device_access_list', http: route('GET', '/devices/{device}/access'), summary: 'Who else may access a device', batch: false, readOnly: true, capability: 'device:view', params: { device }, result: array(accessEntrySchema) }),
  defineOperation({
    name: 'device_access_add',
    http: route('POST', '/devices/{device}/access'),
    summary: 'Share a device with a user or an organization',
    batch: false,
    readOnly: false,
    capability: 'device:manage',
    params: { device, email_or_org_id: str('an e-mail or an organization id', DEVICE_REF), role },
    result: status('added'),
  }),
  defineOperation({
    name: 'device_access_remove',
    http: route('DELETE', '/devices/{device}/access/{email_or_org_id}'),
    summary: 'Stop sharing a device',
    batch: false,
    readOnly: false,
    capability: 'device:manage',
    params: { device, email_or_org_id: str('an e-mail or an organization id', DEVICE_REF) },
    result: status('removed'),
  }),
] as const;
