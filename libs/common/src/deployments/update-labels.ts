/**
 * The container labels that opt a container into the runtime's automatic image updates. Our own
 * label, and Watchtower's, so containers already labelled for Watchtower are updated unchanged.
 */
export const UPDATE_LABEL = 'io.svc.update';
export const WATCHTOWER_ENABLE_LABEL = 'com.centurylinklabs.watchtower.enable';
export const UPDATE_LABELS = [UPDATE_LABEL, WATCHTOWER_ENABLE_LABEL] as const;

/** The values Go's strconv.ParseBool reads as true, which is how Watchtower reads its label. */
const TRUE_VALUES = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);

/**
 * Whether a container with these labels gets automatic image updates. When both labels are
 * present ours decides, so `io.svc.update=false` opts out a container Watchtower would update.
 */
export function wantsImageUpdates(labels: Readonly<Record<string, string>> | null | undefined): boolean {
  const value = labels?.[UPDATE_LABEL] ?? labels?.[WATCHTOWER_ENABLE_LABEL];
  return value !== undefined && TRUE_VALUES.has(value);
}
