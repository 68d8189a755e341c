import { ForwardSession, GoneError, NotFoundError } from '@svc/common';
import { listenFailure } from '../forward/forward-targets';
import { checkForwardAccess, ForwardSessionStore, ForwardStarted, newSessionId, openForwarders, planForward, renderTargets } from '../sdk/forward-sessions';
import type { LocalForwarder } from '../sdk/local-forwarder';
import type { SvcClient } from '../sdk/svc-client';

/**
 * forward_start/stop/list for `svc mcp`: the listeners live inside the MCP server's process, so an
 * agent's forwards end with its session instead of outliving it as background processes would
 * (the CLI's BackgroundForwardSessions). `close()` ends them all when the server stops.
 */
export class InProcessForwardSessions implements ForwardSessionStore {
  private readonly sessions = new Map<string, { session: ForwardSession; forwarders: LocalForwarder[] }>();
  private closed = false;

  constructor(
    private readonly client: Pick<SvcClient, 'call' | 'streams'>,
    private readonly log: (line: string) => void,
  ) {}

  async start(device: string, specs: string[]): Promise<ForwardStarted> {
    planForward(specs);
    await checkForwardAccess(this.client, device);
    const forwarders = await openForwarders(await this.client.streams(), device, specs, {
      onConnectionError: (error) => this.log(`forward to ${device}: a connection could not be forwarded: ${error.message}`),
    }).catch((error: unknown) => {
      throw listenFailure(error);
    });
    if (this.closed) {
      // The server began shutting down while the listeners opened: nobody could stop them later.
      await closeAll(forwarders);
      throw new GoneError('svc mcp is shutting down');
    }
    const session: ForwardSession = { session_id: newSessionId(), device, specs: [...specs], targets: renderTargets(forwarders) };
    this.sessions.set(session.session_id, { session, forwarders });
    return { session_id: session.session_id, device, targets: session.targets, status: 'started' };
  }

  async stop(sessionId: string): Promise<{ session_id: string; status: 'stopped' }> {
    const entry = this.sessions.get(sessionId);
    if (!entry) throw new NotFoundError(`No forward session ${sessionId} (forward_list shows the open ones)`);
    this.sessions.delete(sessionId);
    await closeAll(entry.forwarders);
    return { session_id: sessionId, status: 'stopped' };
  }

  async list(): Promise<ForwardSession[]> {
    return [...this.sessions.values()].map((entry) => entry.session);
  }

  /** Stops every session and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions.keys()].map((id) => this.stop(id)));
  }
}

function closeAll(forwarders: LocalForwarder[]): Promise<void[]> {
  return Promise.all(forwarders.map((forwarder) => forwarder.close()));
}
