import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFingerprint, readCredentials, verifyRegistrationProof, writeCredentials } from '@svc/common';
import { ApiAnswer, ServerUnreachableError } from '../http/server-api';
import { RuntimeLogger } from '../logging/runtime-logger';
import { RuntimeExit } from '../runtime-exit';
import { DeviceStore } from './device-store';
import { APPROVAL_TIMEOUT_MESSAGE, registerDevice, RegistrationDeps, RegistrationOptions } from './register-device';

/** A scripted registration endpoint that checks each poll's signature like the server does. */
class FakeRegistrationApi {
  posts: Record<string, unknown>[] = [];
  polls: { requestId: string; validProof: boolean }[] = [];
  /** When set: the server's clock (ms); proofs more than 5 minutes off it are refused with 401. */
  serverNow?: () => number;

  constructor(
    private readonly statuses: (ApiAnswer | Error)[],
    private readonly postAnswer: (body: Record<string, unknown>) => ApiAnswer = () => ({ status: 201, body: { request_id: 'req_0123456789' } }),
  ) {}

  async post(_path: string, body: unknown): Promise<ApiAnswer> {
    this.posts.push(body as Record<string, unknown>);
    return this.postAnswer(body as Record<string, unknown>);
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<ApiAnswer> {
    const requestId = new URL(path, 'http://x').searchParams.get('request_id')!;
    const publicKey = this.posts.at(-1)?.public_key as string | undefined;
    const validProof =
      publicKey !== undefined && verifyRegistrationProof(publicKey, requestId, Number(headers['x-svc-timestamp']), headers['x-svc-signature'] ?? '');
    this.polls.push({ requestId, validProof });
    if (this.serverNow && Math.abs(Number(headers['x-svc-timestamp']) * 1000 - this.serverNow()) > 300_000) {
      return { status: 401, body: { message: 'Registration proof refused' }, date: this.serverNow() };
    }
    const next = this.statuses.shift() ?? { status: 200, body: { status: 'pending' } };
    if (next instanceof Error) throw next;
    return next;
  }
}

describe('registerDevice', () => {
  let dir: string;
  let store: DeviceStore;
  let said: string[];
  let clock: number;
  const options: RegistrationOptions = { owner: 'user:alice@example.test', deviceId: 'pi-1', pollIntervalMs: 10_000, approvalTimeoutMs: 60 * 60_000 };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-reg-'));
    store = new DeviceStore(join(dir, 'credentials.json'));
    said = [];
    clock = 1_700_000_000_000;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function deps(api: FakeRegistrationApi, extra: Partial<RegistrationDeps> = {}): RegistrationDeps {
    return {
      api,
      store,
      log: new RuntimeLogger('error'),
      say: (line) => said.push(line),
      sleep: async (ms) => {
        clock += ms;
      },
      now: () => clock,
      ...extra,
    };
  }

  const pending = { status: 200, body: { status: 'pending' } };
  const approved = { status: 200, body: { status: 'approved', api_key: 'svc_new_key_0123456789abcdefghij', device_id: 'pi-1' } };

  it('posts the request with its public key, prints the fingerprint, polls with a signed proof, saves the key', async () => {
    writeCredentials(store.path, { credentials: { OAuth2Token: { access_token: 'a', expires_at: 1 } } });
    const api = new FakeRegistrationApi([pending, pending, approved]);
    const started = clock;
    const result = await registerDevice(options, deps(api), new AbortController().signal);

    expect(result).toEqual({ apiKey: 'svc_new_key_0123456789abcdefghij', deviceId: 'pi-1' });
    expect(api.posts).toEqual([
      {
        device_id: 'pi-1',
        owner_scope: 'user:alice@example.test',
        device_info: { hostname: expect.any(String), platform: expect.any(String), architecture: expect.any(String), os_version: expect.any(String) },
        public_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      },
    ]);
    expect(api.polls).toEqual([1, 2, 3].map(() => ({ requestId: 'req_0123456789', validProof: true })));
    expect(clock - started).toBe(30_000);
    const fingerprint = keyFingerprint(api.posts[0].public_key as string);
    expect(fingerprint).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    expect(said.join('\n')).toContain(`Key fingerprint: ${fingerprint}`);
    expect(said.join('\n')).toContain('svc devices approve req_0123456789');
    const saved = readCredentials(store.path);
    expect(saved.credentials).toEqual({ OAuth2Token: { access_token: 'a', expires_at: 1 } });
    expect(saved.device_credentials).toEqual({ api_key: 'svc_new_key_0123456789abcdefghij', device_id: 'pi-1', identity_key: expect.any(String) });
  });

  it(`gives up with "${APPROVAL_TIMEOUT_MESSAGE}" when nobody approves in time`, async () => {
    const api = new FakeRegistrationApi([]);
    const promise = registerDevice({ ...options, approvalTimeoutMs: 60_000 }, deps(api), new AbortController().signal);
    await expect(promise).rejects.toEqual(new RuntimeExit(1, APPROVAL_TIMEOUT_MESSAGE));
    expect(api.polls).toHaveLength(6);
    expect(store.read().api_key).toBeUndefined();
  });

  it('stops with a clear message when the request is rejected', async () => {
    const api = new FakeRegistrationApi([pending, { status: 200, body: { status: 'rejected' } }]);
    await expect(registerDevice(options, deps(api), new AbortController().signal)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining('Registration was rejected'),
    });
    expect(store.read().request_id).toBeUndefined();
  });

  it('keeps polling through network failures and server errors', async () => {
    const api = new FakeRegistrationApi([new ServerUnreachableError('ECONNREFUSED'), { status: 503, body: {} }, approved]);
    expect(await registerDevice(options, deps(api), new AbortController().signal)).toMatchObject({ deviceId: 'pi-1' });
  });

  it("signs with the server's time when the device clock is far off (no real-time clock)", async () => {
    const api = new FakeRegistrationApi([pending, approved]);
    api.serverNow = () => clock + 3 * 60 * 60_000;
    expect(await registerDevice(options, deps(api), new AbortController().signal)).toMatchObject({ deviceId: 'pi-1' });
    expect(api.polls).toHaveLength(3);
  });

  it('refuses to go on without an owner when there is no terminal to ask', async () => {
    const api = new FakeRegistrationApi([]);
    await expect(registerDevice({ ...options, owner: undefined }, deps(api), new AbortController().signal)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('--owner'),
    });
    expect(api.posts).toEqual([]);
  });

  it('asks for the owner on a terminal', async () => {
    const api = new FakeRegistrationApi([approved]);
    await registerDevice({ ...options, owner: undefined }, deps(api, { askOwner: async () => 'org:acme' }), new AbortController().signal);
    expect(api.posts[0].owner_scope).toBe('org:acme');
  });

  it('resumes the pending request of an earlier run instead of posting a second one', async () => {
    store.update((device) => Object.assign(device, { device_id: 'pi-1', request_id: 'req_earlier_run' }));
    const api = new FakeRegistrationApi([pending, approved]);
    // The fake checks proofs against the last posted key; seed it with this identity's key.
    api.posts.push({ public_key: store.identity().publicKey });
    await registerDevice(options, deps(api), new AbortController().signal);
    expect(api.posts).toHaveLength(1);
    expect(api.polls).toEqual([
      { requestId: 'req_earlier_run', validProof: true },
      { requestId: 'req_earlier_run', validProof: true },
    ]);
  });

  it('collects the key of a request approved while no runtime was running, without a new request', async () => {
    store.update((device) => Object.assign(device, { device_id: 'pi-1', request_id: 'req_earlier_run' }));
    const api = new FakeRegistrationApi([approved]);
    const result = await registerDevice(options, deps(api), new AbortController().signal);
    expect(result).toEqual({ apiKey: approved.body.api_key, deviceId: 'pi-1' });
    expect(api.posts).toHaveLength(0);
    expect(store.read()).toMatchObject({ api_key: approved.body.api_key, device_id: 'pi-1' });
    expect(store.read().request_id).toBeUndefined();
  });

  it('makes a new request when the saved one is gone', async () => {
    store.update((device) => Object.assign(device, { device_id: 'pi-1', request_id: 'req_expired' }));
    const api = new FakeRegistrationApi([{ status: 404, body: {} }, approved]);
    await registerDevice(options, deps(api), new AbortController().signal);
    expect(api.posts).toHaveLength(1);
  });

  it('keeps one identity across registrations (the approver sees the same fingerprint)', async () => {
    await registerDevice(options, deps(new FakeRegistrationApi([approved])), new AbortController().signal);
    const first = new FakeRegistrationApi([approved]);
    await registerDevice(options, deps(first), new AbortController().signal);
    const second = new FakeRegistrationApi([approved]);
    await registerDevice(options, deps(second), new AbortController().signal);
    expect(second.posts[0].public_key).toBe(first.posts[0].public_key);
  });

  it('refuses to continue when the server reports another fingerprint for its key', async () => {
    const api = new FakeRegistrationApi([], () => ({ status: 201, body: { request_id: 'req_0123456789', fingerprint: 'AAAA-AAAA-AAAA-AAAA' } }));
    await expect(registerDevice(options, deps(api), new AbortController().signal)).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('AAAA-AAAA-AAAA-AAAA') });
  });

  it('reports a refused request (bad owner) with the server message', async () => {
    const body = { statusCode: 400, error: 'Bad Request', message: 'owner_scope must be user:<email> or org:<org_id>', code: 'INVALID_INPUT', requestId: 'req-1' };
    const api = new FakeRegistrationApi([], () => ({ status: 400, body }));
    await expect(registerDevice(options, deps(api), new AbortController().signal)).rejects.toMatchObject({
      exitCode: 1,
      message: 'The server refused the registration request: owner_scope must be user:<email> or org:<org_id>',
    });
  });

  // The one reading of error answers (errorFromAnswer): a proxy's own JSON is not taken for the server's word.
  it('says a refusal in another shape than svc\'s did not come from the svc server', async () => {
    const api = new FakeRegistrationApi([], () => ({ status: 403, body: { message: 'Forbidden' } }));
    await expect(registerDevice(options, deps(api), new AbortController().signal)).rejects.toMatchObject({
      exitCode: 1,
      message: 'The server refused the registration request: The server answered HTTP 403, not with an svc error answer',
    });
  });

  it('returns undefined when stopped while waiting', async () => {
    const controller = new AbortController();
    const api = new FakeRegistrationApi([]);
    const result = await registerDevice(options, deps(api, { sleep: async () => controller.abort() }), controller.signal);
    expect(result).toBeUndefined();
  });
});
