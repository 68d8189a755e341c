import { randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { BRIDGE_PROTOCOL, FRAME_HEADER_BYTES, InvalidInputError, offeredProtocols, TUNNEL_LIMITS, UnauthenticatedError } from '@svc/common';
import { WebSocket, WebSocketServer } from 'ws';
import type { UserPrincipal } from '../auth/principal';
import { BearerAuthenticator } from '../authentication/bearer-authenticator';
import { AllExceptionsFilter } from '../common/http-exception.filter';
import { requestContext } from '../logging/request-context';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { ExecStreamService } from '../exec/exec-stream.service';
import { ShellService } from '../shell/shell.service';
import type { TicketRecord } from './ticket-record';
import { TERMINAL_WS_PATH, TicketsService } from './tickets.service';
import { CLOSE_CODES, TerminalSession } from './terminal-session';

/** As the REST API: a well-formed incoming `x-request-id` is kept. */
const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

const NO_TOKEN = `Authentication required: open the socket with the subprotocols ${BRIDGE_PROTOCOL} and svc.bearer.<base64url of the access token>`;

/**
 * The terminal WebSocket on REST_PORT: `GET /api/ws?ticket=…` upgrades only for a caller whose
 * access token (in the `Sec-WebSocket-Protocol` header, bridge-protocol.ts) passes the REST API's
 * authentication, with a ticket issued to that same user, unspent, unexpired and presented from
 * the origin it was issued to (refusals are plain HTTP answers before any upgrade). The session then opens the shell or exec stream through the same
 * services as the CLI's client streams (authorization, `device.shell_opened` / `device.exec`
 * audit marked "via browser", TunnelRegistry and so the peer hop) and relays frames.
 */
@Injectable()
export class TerminalBridge implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly sockets = new WebSocketServer({
    noServer: true,
    maxPayload: FRAME_HEADER_BYTES + TUNNEL_LIMITS.frameMaxPayload,
    perMessageDeflate: false,
    // Only ever svc.v1: ws would otherwise echo the first offered, which may be the bearer token.
    handleProtocols: (offered: Set<string>) => (offered.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });
  private readonly errors = new AllExceptionsFilter();
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.upgrade(req, socket, head);

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly tickets: TicketsService,
    private readonly bearer: BearerAuthenticator,
    private readonly shells: ShellService,
    private readonly execs: ExecStreamService,
  ) {}

  onApplicationBootstrap(): void {
    this.server().on('upgrade', this.onUpgrade);
  }

  beforeApplicationShutdown(): void {
    this.server().off('upgrade', this.onUpgrade);
    for (const ws of this.sockets.clients) ws.close(CLOSE_CODES.shutdown, 'server shutting down');
  }

  private server(): Server {
    return this.adapterHost.httpAdapter.getHttpServer() as Server;
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => undefined);
    if (requestPath(req) !== TERMINAL_WS_PATH) return this.serveAsRequest(req, socket);
    const incoming = single(req.headers['x-request-id']);
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    await requestContext.run({ requestId, viaBrowser: true }, async () => {
      let ticket: TicketRecord;
      try {
        // Who presents the ticket comes first: without a valid token the ticket is not even looked up (nor spent).
        const presenter = await this.presenter(req);
        ticket = await this.tickets.redeem(ticketParameter(req), req.headers, presenter);
      } catch (err) {
        this.refuse(socket, err, requestId);
        return;
      }
      if (socket.destroyed) return;
      this.sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
        const session = new TerminalSession(ws, requestId);
        void requestContext.run({ requestId, viaBrowser: true }, () => session.run(() => this.open(ticket, requestId)));
      });
    });
  }

  /** The caller, authenticated as REST authenticates `Authorization: Bearer`, from the upgrade's subprotocols. */
  private presenter(req: IncomingMessage): Promise<UserPrincipal> {
    const { protocols, bearer } = offeredProtocols(req.headers['sec-websocket-protocol']);
    if (bearer === undefined) throw new UnauthenticatedError(NO_TOKEN);
    if (!protocols.includes(BRIDGE_PROTOCOL)) throw new InvalidInputError(`Sec-WebSocket-Protocol must offer ${BRIDGE_PROTOCOL}, the one the bridge speaks`);
    return this.bearer.authenticate(`Bearer ${bearer}`);
  }

  private open(ticket: TicketRecord, requestId: string): Promise<TunnelStream> {
    const service = ticket.operation === 'device_shell' ? this.shells : this.execs;
    return service.open(ticket.principal, this.tickets.authorizer(ticket), ticket.args, requestId);
  }

  /**
   * With an 'upgrade' listener, Node hands every request carrying `Upgrade` here (before Node
   * 24.9 there is no way to decline): one for another path, e.g. curl's `Upgrade: h2c`, is
   * served by the application as an ordinary request, on a connection that closes after it.
   */
  private serveAsRequest(req: IncomingMessage, socket: Duplex): void {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      socket.end();
    });
    this.server().emit('request', req, res);
  }

  /** The REST error answer, as an HTTP response on the raw socket, before any upgrade. */
  private refuse(socket: Duplex, err: unknown, requestId: string): void {
    const answer = this.errors.toBody(err);
    const status = answer.statusCode;
    const body = JSON.stringify(answer);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Connection: close',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
    ];
    if (!socket.destroyed) socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
}

function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://upgrade.invalid');
  } catch {
    return undefined;
  }
}

function requestPath(req: IncomingMessage): string | undefined {
  return requestUrl(req)?.pathname;
}

/** The `ticket` query parameter of `/api/ws`. */
function ticketParameter(req: IncomingMessage): string | null {
  const url = requestUrl(req);
  if (!url) throw new InvalidInputError('The request path is not a valid URL');
  if (url.searchParams.getAll('ticket').length > 1) throw new InvalidInputError('ticket is given more than once');
  return url.searchParams.get('ticket');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
