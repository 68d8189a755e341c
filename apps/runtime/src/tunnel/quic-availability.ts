import { loadQuinn } from '@svc/common';

/** SVC_QUIC_BINDING: `load` the native QUIC binding when needed, or `none` (act as a platform without one). */
export const QUIC_BINDING_SETTINGS = ['load', 'none'] as const;
export type QuicBindingSetting = (typeof QUIC_BINDING_SETTINGS)[number];

/**
 * Why this runtime cannot dial QUIC at all, or undefined when it can: the platform has no QUIC
 * binding (e.g. 32-bit ARM: @chainsafe/libp2p-quic ships none), it does not load, or
 * SVC_QUIC_BINDING=none says to act as if so. `auto` then runs on TCP and says why.
 */
export function quicUnavailableReason(setting: QuicBindingSetting, load: () => unknown = loadQuinn): string | undefined {
  if (setting === 'none') return 'SVC_QUIC_BINDING=none';
  try {
    load();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
