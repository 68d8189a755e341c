import type { Readable, Writable } from 'node:stream';
import type { RuntimeConfig } from './config/runtime-config';
import { deploymentChannelHandler } from './deployments/deployment-channel-handler';
import { DeploymentEngine, deploymentsDirectory } from './deployments/deployment-engine';
import { deploymentLogsHandler } from './deployments/deployment-logs-handler';
import { ImageUpdateChecker } from './deployments/image-updates';
import { dockerHandler } from './handlers/docker-handler';
import { handleExec } from './handlers/exec-handler';
import { handleForwardTcp, handleForwardUnix } from './handlers/forward-handler';
import { fsHandlers } from './handlers/fs-handlers';
import { UploadTempFiles } from './handlers/fs-temp-sweeper';
import { handleShell } from './handlers/shell-handler';
import { ServerApi } from './http/server-api';
import { RuntimeLogger } from './logging/runtime-logger';
import { DeviceStore } from './registration/device-store';
import { terminalOwnerPrompt } from './registration/owner-prompt';
import { registerDevice } from './registration/register-device';
import { EXIT_CODES, ExitCode, RuntimeExit } from './runtime-exit';
import { BOOT_ID, runtimeVersion } from './runtime-version';
import { OperationRegistry } from './supervisor/operation-registry';
import { acquireRuntimeLock } from './supervisor/runtime-lock';
import { RuntimeStatusFile } from './supervisor/runtime-status';
import { Backoff } from './tunnel/backoff';
import { StreamRouter } from './tunnel/stream-router';
import { loadTunnelTrust } from './tunnel/tls-trust';
import { OpenTunnel, openTunnel } from './tunnel/tunnel-connection';
import { discoverTunnel, withAnnouncedQuic } from './tunnel/tunnel-discovery';
import { runTunnelLoop } from './tunnel/tunnel-loop';
import { quicUnavailableReason } from './tunnel/quic-availability';
import { connectWithTransport } from './tunnel/transport-select';
import { sleep } from './util/abortable';

export interface RuntimeIo {
  stdin: Readable & { isTTY?: boolean };
  /** For the person at the device: the fingerprint to compare, the approval. */
  stdout: Writable;
  /** JSON-lines logs, and the one line that says why the runtime stopped. */
  stderr: Writable;
}

/**
 * `svc runtime run`: one runtime per device (lock), a key (SVC_API_KEY, the credentials file, or
 * a registration), then the tunnel until `signal` aborts. A refused key ends it (exit 3) unless
 * `--reregister` says to register again with the same identity.
 */
export async function runDaemon(config: RuntimeConfig, io: RuntimeIo, log: RuntimeLogger, signal: AbortSignal): Promise<ExitCode> {
  let trust;
  try {
    trust = loadTunnelTrust(config.caFile, config.pin);
  } catch (error) {
    throw new RuntimeExit(EXIT_CODES.usage, (error as Error).message);
  }
  const api = new ServerApi(config.serverUrl, trust.ca);
  const store = new DeviceStore(config.credentialsPath);
  const lock = acquireRuntimeLock(config.configDir);
  const status = new RuntimeStatusFile(config.configDir, config.serverUrl.origin, (error) => log.warn('runtime status not published', { error }));
  const publishTunnel = tunnelPublisher(status);
  const operations = new OperationRegistry();
  const uploadTemps = new UploadTempFiles(config.configDir, log.child({ component: 'files' }));
  // Jobs are the runtime's children: they stop with it and start again from the stored state (docs/architecture.md, "Deployments").
  const deployments = new DeploymentEngine({ dir: deploymentsDirectory(config.configDir), logger: log.child({ component: 'deployments' }) });
  const router = new StreamRouter(
    {
      exec: handleExec,
      'forward/tcp': handleForwardTcp,
      'forward/unix': handleForwardUnix,
      docker: dockerHandler(config.dockerSockets),
      shell: handleShell,
      ...fsHandlers(uploadTemps),
      deployments: deploymentChannelHandler(deployments),
      'deployments/logs': deploymentLogsHandler(deployments),
    },
    operations,
    log,
  );
  const runtime = { version: runtimeVersion(), boot_id: BOOT_ID };
  log.info('runtime starting', { version: runtime.version, server: config.serverUrl.origin, credentials: config.credentialsPath });
  const imageUpdates = new ImageUpdateChecker({ sockets: config.dockerSockets, intervalMs: config.imageUpdateIntervalMs, log: log.child({ component: 'image-updates' }) });
  try {
    await deployments.start().catch((error) => log.error('the stored deployment did not start', { error }));
    imageUpdates.start();
    uploadTemps.start();
    for (;;) {
      status.update({ state: 'registering', device_id: store.read().device_id ?? null });
      const apiKey = config.envApiKey ?? store.read().api_key ?? (await register(config, io, log, api, store, signal));
      if (apiKey === undefined) return EXIT_CODES.ok;
      status.update({ state: 'connecting' });
      const quicUnavailable = config.transport === 'tcp' ? undefined : quicUnavailableReason(config.quicBinding);
      if (quicUnavailable !== undefined) log.warn('QUIC unavailable on this device', { reason: quicUnavailable, transport: config.transport });
      const end = await runTunnelLoop(
        {
          connect: () =>
            connectWithTransport({
              mode: config.transport,
              probeIntervalMs: config.quicProbeIntervalMs,
              nearRttMs: config.quicNearRttMs,
              quicUnavailable,
              target: async () => (config.tunnel ? await withAnnouncedQuic(config.tunnel, api) : await discoverTunnel(api)),
              open: async (target, carrier, connectTimeoutMs, note) => {
                if (carrier === 'quic' && quicUnavailable !== undefined) throw new Error(`QUIC unavailable on this device: ${quicUnavailable}`);
                const hello = note === undefined ? runtime : { ...runtime, carrier_note: note };
                return publishTunnel(await openTunnel({ target, carrier, connectTimeoutMs, trust, apiKey, runtime: hello, router, operations, log }), note);
              },
              log,
            }),
          backoff: new Backoff(),
          log,
          sleep,
          now: Date.now,
        },
        signal,
      );
      if (end === 'stopped') return EXIT_CODES.ok;
      if (config.envApiKey !== undefined) {
        throw new RuntimeExit(EXIT_CODES.keyRefused, 'The server refused the API key in SVC_API_KEY (device rejected, removed or re-keyed); not retrying');
      }
      if (!config.reregister) {
        throw new RuntimeExit(
          EXIT_CODES.keyRefused,
          "The server refused this device's API key (device rejected, removed or re-keyed); not retrying. Run with --reregister to register again",
        );
      }
      log.warn('API key refused; registering again (--reregister)');
      store.update((device) => delete device.api_key);
    }
  } finally {
    await imageUpdates.stop();
    uploadTemps.stop();
    await deployments.shutdown();
    status.remove();
    lock.release();
    log.info('runtime stopped');
  }
}

/** Every tunnel that comes up is the current one (auto mode moves from TCP onto QUIC), until it closes. */
function tunnelPublisher(status: RuntimeStatusFile): (tunnel: OpenTunnel, carrierNote?: string) => OpenTunnel {
  let current: OpenTunnel | undefined;
  return (tunnel, carrierNote) => {
    status.update({ state: 'online', carrier: tunnel.carrier, carrier_note: carrierNote ?? null, device_id: tunnel.deviceId, connected_at: new Date().toISOString() });
    current = tunnel;
    void tunnel.closed.then(() => {
      if (current !== tunnel) return;
      current = undefined;
      status.update({ state: 'connecting', carrier: null, carrier_note: null, connected_at: null });
    });
    return tunnel;
  };
}

async function register(config: RuntimeConfig, io: RuntimeIo, log: RuntimeLogger, api: ServerApi, store: DeviceStore, signal: AbortSignal): Promise<string | undefined> {
  const registered = await registerDevice(
    { owner: config.owner, deviceId: config.deviceId, name: config.name, pollIntervalMs: config.pollIntervalMs, approvalTimeoutMs: config.approvalTimeoutMs },
    {
      api,
      store,
      log,
      say: (line) => io.stdout.write(`${line}\n`),
      askOwner: terminalOwnerPrompt(io.stdin, io.stdout),
      sleep,
      now: Date.now,
    },
    signal,
  );
  return registered?.apiKey;
}
