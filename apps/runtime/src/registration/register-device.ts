import { errorFromAnswer, REGISTRATION_PROOF_HEADERS, ROUTES } from '@svc/common';
import { ServerApi, ServerUnreachableError } from '../http/server-api';
import type { RuntimeLogger } from '../logging/runtime-logger';
import { EXIT_CODES, RuntimeExit } from '../runtime-exit';
import { defaultDeviceId, deviceSystemInfo } from './device-info';
import type { DeviceStore } from './device-store';
import { DeviceIdentity, signStatusPoll } from './identity-key';

export const APPROVAL_TIMEOUT_MESSAGE = 'API key not approved within timeout';
const REJECTED_MESSAGE = 'Registration was rejected; this device was not given an API key';

export interface RegistrationOptions {
  owner?: string;
  deviceId?: string;
  /** Display name to ask for (--name). */
  name?: string;
  pollIntervalMs: number;
  approvalTimeoutMs: number;
}

export interface RegistrationDeps {
  api: Pick<ServerApi, 'get' | 'post'>;
  store: DeviceStore;
  log: RuntimeLogger;
  /** Lines for the person at the device (stdout): the fingerprint to compare. */
  say(line: string): void;
  /** Asks for the owner on a terminal; undefined when there is none. */
  askOwner?(): Promise<string | undefined>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
}

export interface Registered {
  apiKey: string;
  deviceId: string;
}

type PollOutcome = { status: 'pending' } | { status: 'approved'; api_key: string; device_id: string } | { status: 'rejected' } | { status: 'gone'; why: string };

/**
 * Registration as the hardened protocol has it: post the request with the identity's public key,
 * print the fingerprint the approver will see, poll with a signed proof until approved, rejected
 * or out of time, then save the key. A restarted runtime resumes its pending request, and collects
 * the key of one approved while it was stopped. Returns
 * undefined when `signal` aborts (shutdown) first.
 */
export async function registerDevice(options: RegistrationOptions, deps: RegistrationDeps, signal: AbortSignal): Promise<Registered | undefined> {
  const identity = deps.store.identity();
  const deviceId = chooseDeviceId(options, deps.store);
  const signer: ProofSigner = { identity, offsetMs: 0 };
  const deadline = deps.now() + options.approvalTimeoutMs;

  const resumed = await resume(deps, signer);
  if (resumed?.outcome.status === 'approved') return saveApproved(deps, resumed.outcome);
  let requestId = resumed?.requestId;
  if (requestId === undefined) {
    const owner = options.owner ?? (await deps.askOwner?.());
    if (owner === undefined) {
      throw new RuntimeExit(EXIT_CODES.usage, 'No owner for this device: pass --owner user:<email> (or org:<org_id>), or set OWNER_REFERENCE');
    }
    requestId = await postRequest(deviceId, owner, identity, deps, { deadline, retryMs: options.pollIntervalMs, name: options.name }, signal);
    if (requestId === undefined) return undefined;
  }
  deps.say(`Registration of device ${deviceId} requested (request ${requestId}).`);
  deps.say(`Key fingerprint: ${identity.fingerprint}`);
  deps.say(`Approve it only if the approver sees this same fingerprint:  svc devices approve ${requestId}`);

  while (deps.now() < deadline) {
    await deps.sleep(Math.min(options.pollIntervalMs, Math.max(0, deadline - deps.now())), signal);
    if (signal.aborted) return undefined;
    const outcome = await poll(deps, signer, requestId).catch((error: Error) => {
      deps.log.warn('registration status poll failed', { error });
      return { status: 'pending' } as const;
    });
    if (outcome.status === 'pending') continue;
    if (outcome.status === 'approved') return saveApproved(deps, outcome);
    deps.store.update((device) => delete device.request_id);
    if (outcome.status === 'rejected') throw new RuntimeExit(EXIT_CODES.failed, REJECTED_MESSAGE);
    throw new RuntimeExit(EXIT_CODES.failed, `Registration request ended: ${outcome.why}; start the runtime again to make a new request`);
  }
  throw new RuntimeExit(EXIT_CODES.failed, APPROVAL_TIMEOUT_MESSAGE);
}

/** `--device-id`, else the one saved earlier, else a stable default (saved for next time). */
function chooseDeviceId(options: RegistrationOptions, store: DeviceStore): string {
  const saved = store.read().device_id;
  const deviceId = options.deviceId ?? saved ?? defaultDeviceId();
  if (deviceId !== saved) {
    store.update((device) => {
      device.device_id = deviceId;
      delete device.request_id;
    });
  }
  return deviceId;
}

/**
 * The request saved by an earlier run (its id in the credentials file; the proof is signed with
 * the saved identity key): still pending, or approved while no runtime was polling, whose key
 * this poll has just collected (the server hands it out once). Undefined when there is none, or
 * the server no longer knows it.
 */
async function resume(deps: RegistrationDeps, signer: ProofSigner): Promise<{ requestId: string; outcome: PollOutcome } | undefined> {
  const saved = deps.store.read().request_id;
  if (saved === undefined) return undefined;
  const outcome = await poll(deps, signer, saved).catch(() => ({ status: 'pending' }) as const);
  if (outcome.status === 'pending' || outcome.status === 'approved') return { requestId: saved, outcome };
  deps.store.update((device) => delete device.request_id);
  if (outcome.status === 'rejected') throw new RuntimeExit(EXIT_CODES.failed, REJECTED_MESSAGE);
  deps.log.info('the saved registration request is over; requesting again', { request_id: saved, why: outcome.why });
  return undefined;
}

/** The key is written (atomically, 0600) before anything else happens: it cannot be collected twice. */
function saveApproved(deps: RegistrationDeps, outcome: { api_key: string; device_id: string }): Registered {
  deps.store.update((device) => {
    device.api_key = outcome.api_key;
    device.device_id = outcome.device_id;
    delete device.request_id;
  });
  deps.say(`Approved: device ${outcome.device_id} is registered.`);
  return { apiKey: outcome.api_key, deviceId: outcome.device_id };
}

async function postRequest(
  deviceId: string,
  owner: string,
  identity: DeviceIdentity,
  deps: RegistrationDeps,
  { deadline, retryMs, name }: { deadline: number; retryMs: number; name?: string },
  signal: AbortSignal,
): Promise<string | undefined> {
  const body = { device_id: deviceId, owner_scope: owner, device_info: deviceSystemInfo(), public_key: identity.publicKey, ...(name === undefined ? {} : { name }) };
  for (;;) {
    let answer;
    try {
      answer = await deps.api.post(ROUTES.registration_request.path, body);
    } catch (error) {
      if (!(error instanceof ServerUnreachableError)) throw error;
      deps.log.warn('registration request failed; retrying', { error });
    }
    if (answer?.status === 201) {
      const { request_id: requestId, fingerprint } = answer.body as { request_id: string; fingerprint?: string };
      if (fingerprint !== undefined && fingerprint !== identity.fingerprint) {
        throw new RuntimeExit(EXIT_CODES.failed, `The server shows fingerprint ${fingerprint} for this device's key ${identity.fingerprint}; not registering through it`);
      }
      deps.store.update((device) => {
        device.request_id = requestId;
      });
      return requestId;
    }
    if (answer && answer.status !== 429 && answer.status < 500) {
      throw new RuntimeExit(EXIT_CODES.failed, `The server refused the registration request: ${errorFromAnswer(answer.status, answer.body).message}`);
    }
    if (answer) deps.log.warn('registration request not accepted yet; retrying', { status: answer.status, message: errorFromAnswer(answer.status, answer.body).message });
    if (deps.now() >= deadline) throw new RuntimeExit(EXIT_CODES.failed, APPROVAL_TIMEOUT_MESSAGE);
    await deps.sleep(retryMs, signal);
    if (signal.aborted) return undefined;
  }
}

/**
 * Signs polls with the server's idea of the time: a device without a real-time clock may boot
 * hours off, and the server refuses proofs whose timestamp is far from its own.
 */
interface ProofSigner {
  identity: DeviceIdentity;
  offsetMs: number;
}

/** A refused proof whose Date header shows the clocks this far apart is retried on the server's time. */
const CLOCK_SKEW_RETRY_MS = 30_000;

async function poll(deps: RegistrationDeps, signer: ProofSigner, requestId: string): Promise<PollOutcome> {
  const timestamp = Math.floor((deps.now() + signer.offsetMs) / 1000);
  const answer = await deps.api.get(`${ROUTES.registration_status.path}?request_id=${encodeURIComponent(requestId)}`, {
    [REGISTRATION_PROOF_HEADERS.timestamp]: String(timestamp),
    [REGISTRATION_PROOF_HEADERS.signature]: signStatusPoll(signer.identity, requestId, timestamp),
  });
  if (answer.status === 401 && answer.date !== undefined && Math.abs(answer.date - deps.now() - signer.offsetMs) > CLOCK_SKEW_RETRY_MS) {
    signer.offsetMs = answer.date - deps.now();
    deps.log.warn("this device's clock differs from the server's; signing with the server's time", { skew_secs: Math.round(signer.offsetMs / 1000) });
    return { status: 'pending' };
  }
  const body = answer.body as { status?: string; api_key?: string; device_id?: string } | undefined;
  if (answer.status === 200 && body?.status === 'approved' && typeof body.api_key === 'string' && typeof body.device_id === 'string') {
    return { status: 'approved', api_key: body.api_key, device_id: body.device_id };
  }
  if (answer.status === 200 && body?.status === 'pending') return { status: 'pending' };
  if (answer.status === 200 && body?.status === 'rejected') return { status: 'rejected' };
  if (answer.status === 404) return { status: 'gone', why: 'the server no longer knows it (expired or replaced)' };
  if (answer.status === 410) return { status: 'gone', why: 'its API key was already collected, but not saved here' };
  if (answer.status === 401) return { status: 'gone', why: 'the server did not accept this device\'s proof of its key' };
  throw new ServerUnreachableError(`GET ${ROUTES.registration_status.path} answered HTTP ${answer.status}: ${errorFromAnswer(answer.status, answer.body).message}`);
}
