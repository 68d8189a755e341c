import { loadQuinn } from '@svc/common';
import type { QuicBindingSetting } from '../config/runtime-variables';

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
