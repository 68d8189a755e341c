import { describeTunnelDirectoryContract } from './tunnel-directory.contract';
import { InProcessTunnelDirectory } from './tunnel-directory';

// One process: both "replicas" are the same directory.
describeTunnelDirectoryContract('InProcessTunnelDirectory', async () => {
  const directory = new InProcessTunnelDirectory();
  return { a: directory, b: directory, holderA: 'replica-a', holderB: 'replica-b', close: async () => undefined };
});
