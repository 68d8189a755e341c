import { ConflictError, DeviceListItem, DeviceListPage } from '@svc/common';
import { SvcClient } from './svc-client';

const PAGE_SIZE = 500;

export type ReplacingRequest = DeviceListItem & { replaces: NonNullable<DeviceListItem['replaces']> };

/** Every pending registration request the caller may decide (devices_list, paged). */
export async function pendingRequests(client: SvcClient): Promise<DeviceListItem[]> {
  const items: DeviceListItem[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.call('devices_list', { status: 'pending', limit: PAGE_SIZE, cursor })) as unknown as DeviceListPage;
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

/**
 * The pending request `ref` (a request id, or the device id it asks for) when approving it would
 * replace the key of a registered device; null when it would not, or when the server is to
 * decide (no such request, or several for one device id).
 */
export async function replacingRequest(client: SvcClient, ref: string): Promise<ReplacingRequest | null> {
  const pending = await pendingRequests(client);
  const byId = pending.filter((item) => item.request_id === ref);
  const matches = byId.length > 0 ? byId : pending.filter((item) => item.device_id === ref);
  return matches.length === 1 && matches[0].replaces ? (matches[0] as ReplacingRequest) : null;
}

/** How the CLI and the MCP tool name the effect of approving such a request. */
export function replacementWarning(request: ReplacingRequest): string {
  const { device_id, name, status } = request.replaces;
  const device = name && name !== device_id ? `${device_id} (${name})` : device_id;
  const warning = `Approving ${request.request_id} replaces the key of ${device}, ${status}: the device now using that key is cut off at once`;
  const changed = keyChange(request);
  return changed ? `${warning}. ${changed}: approve only if that device was reinstalled or its key deliberately replaced; another machine may be asking for its id` : warning;
}

/**
 * A request whose key is not the one its device id is registered with (`key_mismatch`): an
 * impostor, or a reinstalled device. An ordinary re-key (the same key, the API key lost) is not
 * marked. Named in the list and in the approval's warning, with both fingerprints.
 */
export function keyChange(item: DeviceListItem): string | undefined {
  if (!item.key_mismatch) return undefined;
  return `KEY CHANGED: was ${item.registered_fingerprint ?? 'no recorded key'}, now ${item.fingerprint}`;
}

/**
 * devices_approve as `svc mcp` runs it: an agent never replaces the key of a registered device
 * (that cuts the running device off); a person confirms that with `svc devices approve --yes`.
 */
export async function approveWithoutReplacing(client: SvcClient, ref: string) {
  const replacing = await replacingRequest(client, ref);
  if (replacing) {
    throw new ConflictError(
      `${replacementWarning(replacing)}. This tool does not approve key replacements: a person compares the fingerprint ${replacing.fingerprint} and runs "svc devices approve ${replacing.request_id} --yes"`,
    );
  }
  return client.call('devices_approve', { device: ref });
}

/** Whether `ref` names a pending request the caller may decide (then `devices reject` rejects it rather than removing a device). */
export async function isPendingRequest(client: SvcClient, ref: string): Promise<boolean> {
  return (await pendingRequests(client)).some((item) => item.request_id === ref || item.device_id === ref);
}
