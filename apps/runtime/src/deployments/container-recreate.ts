import type { RuntimeLogger } from '../logging/runtime-logger';
import type { ContainerConfig, ContainerInspect, CreateContainerBody, EndpointSettings, EngineApi, HostConfig, ImageInspect } from './engine-api';

/** What the image update check needs from an engine (the real one is EngineApi; specs pass a fake). */
export type ContainerEngine = Pick<
  EngineApi,
  'listContainers' | 'inspectContainer' | 'inspectImage' | 'pullImage' | 'stopContainer' | 'renameContainer' | 'createContainer' | 'connectNetwork' | 'startContainer' | 'removeContainer'
>;

/** Docker's own default, for containers created without `--stop-timeout`. */
const DEFAULT_STOP_TIMEOUT_SECS = 10;
/** The name an old container has while its replacement is created; one left behind is never updated itself. */
export const ASIDE_NAME = /-svc-replaced-[0-9a-z]+$/;

export interface RecreatePlan {
  name: string;
  body: CreateContainerBody;
  /** Networks beyond the first, connected after create (engines before API 1.44 take one at create). */
  extraNetworks: [string, EndpointSettings][];
  wasRunning: boolean;
  stopTimeoutSecs: number;
}

/**
 * The create request for a container like `container`, on the image `reference` now points to,
 * derived as Watchtower does: the container's Config with what the old image supplied taken out
 * (its env entries, labels, volumes, exposed ports, and entrypoint / cmd / working dir / user /
 * healthcheck when unchanged), so the new image's defaults apply; everything the user set stays,
 * compose's labels included. HostConfig and the networks (with their aliases) are kept.
 */
export function planRecreate(container: ContainerInspect, oldImage: ImageInspect | undefined, reference: string): RecreatePlan {
  const hostConfig = createHostConfig(container.HostConfig);
  const mode = hostConfig.NetworkMode ?? '';
  const ownNetworking = !(mode === 'host' || mode === 'none' || mode.startsWith('container:'));
  const shortId = container.Id.slice(0, 12);
  const endpoints = ownNetworking
    ? Object.entries(container.NetworkSettings?.Networks ?? {}).map(([network, settings]): [string, EndpointSettings] => [network, endpointFor(settings, shortId)])
    : [];
  const [first, ...extraNetworks] = endpoints;
  return {
    name: container.Name.replace(/^\//, ''),
    body: {
      ...createConfig(container, oldImage?.Config ?? {}, reference, ownNetworking),
      HostConfig: hostConfig,
      ...(first ? { NetworkingConfig: { EndpointsConfig: { [first[0]]: first[1] } } } : {}),
    },
    extraNetworks,
    wasRunning: container.State.Running,
    stopTimeoutSecs: container.Config.StopTimeout && container.Config.StopTimeout > 0 ? container.Config.StopTimeout : DEFAULT_STOP_TIMEOUT_SECS,
  };
}

function createConfig(container: ContainerInspect, image: Partial<ContainerConfig>, reference: string, ownNetworking: boolean): ContainerConfig {
  const config: ContainerConfig = { ...container.Config, Image: reference };
  if ((config.WorkingDir ?? '') === (image.WorkingDir ?? '')) delete config.WorkingDir;
  if ((config.User ?? '') === (image.User ?? '')) delete config.User;
  // The engine names a container's host after its id unless told otherwise: the new one gets its own.
  if (!ownNetworking || config.Hostname === container.Id.slice(0, 12)) delete config.Hostname;
  if (sameList(config.Entrypoint, image.Entrypoint)) {
    delete config.Entrypoint;
    if (sameList(config.Cmd, image.Cmd)) delete config.Cmd;
  }
  if (config.Healthcheck !== undefined && JSON.stringify(config.Healthcheck) === JSON.stringify(image.Healthcheck)) delete config.Healthcheck;
  const imageEnv = new Set(image.Env ?? []);
  config.Env = (config.Env ?? []).filter((entry) => !imageEnv.has(entry));
  config.Labels = Object.fromEntries(Object.entries(config.Labels ?? {}).filter(([key, value]) => image.Labels?.[key] !== value));
  config.Volumes = Object.fromEntries(Object.entries(config.Volumes ?? {}).filter(([path]) => !(path in (image.Volumes ?? {}))));
  const exposed = Object.keys(config.ExposedPorts ?? {}).filter((port) => !(port in (image.ExposedPorts ?? {})));
  config.ExposedPorts = Object.fromEntries([...exposed, ...Object.keys(container.HostConfig.PortBindings ?? {})].map((port) => [port, {}]));
  return config;
}

function createHostConfig(host: HostConfig): HostConfig {
  return {
    ...host,
    // Inspect shows a link as `/other:/this/alias`; create takes `other:alias`.
    ...(host.Links ? { Links: host.Links.map((link) => `${link.slice(0, link.indexOf(':')).replace(/^\//, '')}:${link.slice(link.lastIndexOf('/') + 1)}`) } : {}),
    // Podman's inspect names ulimits `RLIMIT_NOFILE` and shows devices without permissions; its
    // create wants `nofile` and refuses an empty mode (Docker shows `nofile` and `rwm`).
    ...(host.Ulimits ? { Ulimits: host.Ulimits.map((u) => ({ ...u, Name: u.Name.replace(/^RLIMIT_/, '').toLowerCase() })) } : {}),
    ...(host.Devices ? { Devices: host.Devices.map((d) => ({ ...d, CgroupPermissions: d.CgroupPermissions || 'rwm' })) } : {}),
  };
}

/** What the user chose for a network (addresses, links, aliases, driver options), not what the engine assigned. */
function endpointFor(settings: EndpointSettings, oldShortId: string): EndpointSettings {
  return {
    IPAMConfig: settings.IPAMConfig ?? null,
    Links: settings.Links ?? null,
    // The engine adds the short id as an alias: the old one would pile up across updates.
    Aliases: (settings.Aliases ?? []).filter((alias) => alias !== oldShortId),
    DriverOpts: settings.DriverOpts ?? null,
  };
}

function sameList(a: string[] | null | undefined, b: string[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((item, i) => item === y[i]);
}

export type RecreateOutcome = { updated: true; id: string } | { updated: false; reason: string };

/**
 * Stops the old container, renames it aside, creates the new one under its name (and starts it
 * when the old one was running), then removes the old one. Should creating or starting the new
 * one fail, the new one is removed and the old one gets its name back and is started again if
 * it was running. Never throws: every failure is logged and returned.
 */
export async function recreateContainer(engine: ContainerEngine, oldId: string, plan: RecreatePlan, log: RuntimeLogger, now = Date.now): Promise<RecreateOutcome> {
  const { name } = plan;
  const aside = `${name}-svc-replaced-${now().toString(36)}`;
  try {
    if (plan.wasRunning) await engine.stopContainer(oldId, plan.stopTimeoutSecs);
    await engine.renameContainer(oldId, aside);
  } catch (error) {
    const reason = `could not stop and set aside the old container: ${message(error)}`;
    log.error('container update failed; old container kept', { container: name, reason });
    if (plan.wasRunning) await engine.startContainer(oldId).catch((e) => log.error('could not start the old container again', { container: name, error: message(e) }));
    return { updated: false, reason };
  }
  let newId: string | undefined;
  try {
    newId = await engine.createContainer(name, plan.body);
    for (const [network, endpoint] of plan.extraNetworks) await engine.connectNetwork(network, newId, endpoint);
    if (plan.wasRunning) await engine.startContainer(newId);
  } catch (error) {
    const reason = `${newId === undefined ? 'could not create the new container' : 'could not set up or start the new container'}: ${message(error)}`;
    const restored = await restore(engine, oldId, newId, aside, plan, log);
    log.error(restored ? 'container update failed; old container restored' : 'container update failed; restoring the old container failed too', { container: name, reason });
    return { updated: false, reason };
  }
  try {
    await engine.removeContainer(oldId);
  } catch (error) {
    log.warn('updated, but the old container could not be removed', { container: name, old_container: aside, error: message(error) });
  }
  return { updated: true, id: newId };
}

/** Each step is tried even when an earlier one failed: a running service matters more than its name. */
async function restore(engine: ContainerEngine, oldId: string, newId: string | undefined, aside: string, plan: RecreatePlan, log: RuntimeLogger): Promise<boolean> {
  const problems: string[] = [];
  const attempt = (what: string, step: () => Promise<void>) => step().catch((error) => void problems.push(`${what}: ${message(error)}`));
  if (newId !== undefined) await attempt('remove the new container', () => engine.removeContainer(newId));
  await attempt('rename the old container back', () => engine.renameContainer(oldId, plan.name));
  if (plan.wasRunning) await attempt('start the old container', () => engine.startContainer(oldId));
  if (problems.length > 0) log.error('could not restore the old container: fix it by hand', { container: plan.name, old_container: aside, new_container: newId, problems });
  return problems.length === 0;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
