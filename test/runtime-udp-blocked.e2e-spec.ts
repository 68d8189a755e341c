/**
 * A runtime whose UDP is blocked for real: a firewall rule (iptables, package `iptables`) drops
 * UDP to the test server's tunnel port, so `--transport auto` must fall back to TLS over TCP on
 * its own discovery (no --tunnel gate), and move to QUIC once the rule is gone (loopback counts
 * as far here, `SVC_QUIC_NEAR_RTT=off`: a near server would get TCP). The test adds its
 * rule, tagged with a comment naming this run, and removes exactly that rule whatever happens.
 * Needs root (or CAP_NET_ADMIN) and iptables; without them it fails, naming what is missing.
 */
import { execFileSync } from 'node:child_process';
import { TunnelRegistry } from '../apps/server/src/relay/tunnel-registry.service';
import { eventually } from './fixtures/eventually';
import { useFleet } from './fixtures/fleet';

/** One DROP rule for UDP to `port`, tagged so that only this rule is ever removed. */
class UdpBlock {
  private readonly rule: string[];
  private added = false;

  constructor(port: number) {
    this.rule = ['INPUT', '-p', 'udp', '--dport', String(port), '-m', 'comment', '--comment', `svc-test-udp-block-${process.pid}-${port}`, '-j', 'DROP'];
  }

  add(): void {
    try {
      execFileSync('iptables', ['-I', ...this.rule], { stdio: 'pipe' });
    } catch (error) {
      throw new Error(`blocking UDP needs iptables and root (apt-get install iptables): ${(error as Error).message}`);
    }
    this.added = true;
  }

  remove(): void {
    if (!this.added) return;
    execFileSync('iptables', ['-D', ...this.rule], { stdio: 'pipe' });
    this.added = false;
  }
}

describe('runtime with UDP blocked by a firewall rule', () => {
  let block: UdpBlock | undefined;
  // Declared before the fleet, so that it runs first: the firewall rule goes whatever happened.
  afterAll(() => {
    block?.remove();
  });
  const fleet = useFleet({ relay: true, users: { alice: 'alice@example.test' } });

  it('falls back to TLS over TCP, and moves to QUIC once UDP passes', async () => {
    const server = fleet.server;
    const alice = fleet.user('alice');
    block = new UdpBlock(server.tunnel!.port);
    block.add();
    // The runtime starts once UDP is blocked; the fleet waits for its tunnel (on TCP).
    const rt = (await fleet.addDevice('udp-blocked', { owner: 'alice', runtime: { args: ['--quic-probe-interval', '500ms'], env: { SVC_TUNNEL_TRANSPORT: 'auto', SVC_QUIC_NEAR_RTT: 'off' } } })).runtime!;
    expect(await rt.waitForLog('QUIC unavailable; using TLS over TCP')).toMatchObject({ error: expect.stringMatching(/QUIC connection to 127\.0\.0\.1:\d+ failed/) });
    expect(await rt.waitForLog('tunnel up')).toMatchObject({ carrier: 'tcp' });
    const registry = server.app.get(TunnelRegistry);
    const exec = () => alice.run('device_exec', { device: 'udp-blocked', command: ['echo', 'hi'] });
    expect(registry.sessionOf('udp-blocked')?.carrier).toBe('tcp');
    expect(await exec()).toMatchObject({ output: 'hi\n', exit_code: 0 });

    block.remove();
    await rt.waitForLog('tunnel moved to QUIC');
    await eventually('the session on QUIC', () => registry.sessionOf('udp-blocked')?.carrier === 'quic', { describe: () => `carrier: ${registry.sessionOf('udp-blocked')?.carrier}` });
    expect(await exec()).toMatchObject({ output: 'hi\n', exit_code: 0 });
  });
});
