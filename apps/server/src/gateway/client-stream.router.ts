import { randomUUID } from 'node:crypto';
import { constants as h2, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { Injectable, Logger } from '@nestjs/common';
import { CLIENT_KIND_HEADER, decodeStreamArgs, http2End, InvalidInputError, NotFoundError, splice, StreamRouteName, SubRoute, SubRouteName, subRoutes, TUNNEL_HEADERS, TunnelProtocolError } from '@svc/common';
import { BearerAuthenticator } from '../authentication/bearer-authenticator';
import { AccessPolicy } from '../authorization/access-policy.service';
import type { AuthorizeDevice } from '../authorization/authorize-device';
import type { UserPrincipal } from '../auth/principal';
import { AllExceptionsFilter } from '../common/http-exception.filter';
import { streamArgsInput } from '../common/operation-input';
import { DockerService } from '../docker/docker.service';
import { ExecStreamService } from '../exec/exec-stream.service';
import { ForwardService } from '../forwarding/forward.service';
import { announcesMcp, requestContext } from '../logging/request-context';
import type { TunnelStream } from '../relay/tunnel-carrier';
import { ShellService } from '../shell/shell.service';

/** As the REST API: a well-formed incoming `x-request-id` is kept. */
const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Opens the device stream a client stream is spliced to; throws a DomainError to refuse. */
export type StreamOpener = (principal: UserPrincipal, authorize: AuthorizeDevice, args: Record<string, unknown>, requestId: string) => Promise<TunnelStream>;

interface ClientStreamRoute {
  name: SubRouteName;
  route: SubRoute;
  pattern: RegExp;
  open: StreamOpener;
}

/** A catalog path (`…/{device}/shell`) as the pattern that captures its device. */
function pathPattern(path: string): RegExp {
  const parts = path.split('{device}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('([^/?]+)')}$`);
}

/**
 * Serves one client stream (docs/protocol.md, "Client streams"): route (the catalog's stream
 * routes, with their capability) → `authorization` (the REST API's token rules) → `svc-args`,
 * checked against the route's `args` in the catalog (the REST routes' validator) → the operation
 * applies the runtime's rules and has AccessPolicy decide the route's capability → it opens a device stream → `:status 200` and the
 * two streams are spliced (bytes both ways, flow control as backpressure, END_STREAM and
 * RST_STREAM passed on). Refusals before that are the REST error answer, `{statusCode, error,
 * message, code, requestId}`, with the same status.
 */
@Injectable()
export class ClientStreamRouter {
  private readonly routes: ClientStreamRoute[];
  private readonly errors = new AllExceptionsFilter();
  private readonly logger = new Logger('ClientStreams');

  constructor(
    private readonly authenticator: BearerAuthenticator,
    private readonly policy: AccessPolicy,
    forwards: ForwardService,
    shells: ShellService,
    docker: DockerService,
    execs: ExecStreamService,
  ) {
    const openers: Record<StreamRouteName, StreamOpener> = {
      'forward_start.stream': (...a) => forwards.open(...a),
      'device_exec.shell': (...a) => shells.open(...a),
      'docker_exec.stream': (...a) => docker.open(...a),
      'device_exec.stream': (...a) => execs.open(...a),
    };
    this.routes = subRoutes()
      .filter(({ route }) => route.stream)
      .map(({ name, route }) => {
        const open = (openers as Record<string, StreamOpener | undefined>)[name];
        if (!open) throw new Error(`client stream ${name} of the catalog has no service`);
        return { name, route, pattern: pathPattern(route.path), open };
      });
  }

  /** The client streams served, each at its catalog path (for the binding test). */
  served(): { name: SubRouteName; pattern: RegExp }[] {
    return this.routes.map(({ name, pattern }) => ({ name, pattern }));
  }

  serve(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const incoming = single(headers['x-request-id']);
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    return requestContext.run({ requestId, viaMcp: announcesMcp(headers[CLIENT_KIND_HEADER]) }, () => this.serveInContext(stream, headers, requestId));
  }

  private async serveInContext(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, requestId: string): Promise<void> {
    stream.on('error', (err) => this.logger.debug(`client stream ${requestId}: ${err.message}`));
    let tunnel: TunnelStream;
    try {
      const { route, ref } = this.match(headers);
      const principal = await this.authenticator.authenticate(single(headers.authorization));
      const checked = streamArgsInput(route.name, route.route, args(headers));
      tunnel = await route.open(principal, () => this.policy.requireDevice(principal, ref, route.route.capability), checked, requestId);
    } catch (err) {
      this.refuse(stream, err, requestId);
      return;
    }
    if (stream.destroyed) {
      tunnel.abort();
      return;
    }
    stream.respond({ [h2.HTTP2_HEADER_STATUS]: 200, 'x-request-id': requestId });
    const outcome = await splice(http2End(stream), { stream: tunnel.body, abort: () => tunnel.abort() });
    this.logger.debug(`client stream ${requestId} closed${outcome.aborted ? ' (aborted)' : ''}`);
  }

  private match(headers: IncomingHttpHeaders): { route: ClientStreamRoute; ref: string } {
    const path = single(headers[h2.HTTP2_HEADER_PATH]) ?? '';
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found || headers[h2.HTTP2_HEADER_METHOD] !== route.route.method) continue;
      try {
        return { route, ref: decodeURIComponent(found[1]) };
      } catch {
        throw new InvalidInputError('The device reference in the path is not valid percent-encoding');
      }
    }
    throw new NotFoundError('Route not found');
  }

  private refuse(stream: ServerHttp2Stream, err: unknown, requestId: string): void {
    const body = this.errors.toBody(err);
    if (body.statusCode >= 500 && body.code === 'INTERNAL') this.logger.error(err instanceof Error ? err : String(err));
    if (stream.destroyed || stream.headersSent) return;
    stream.respond({ [h2.HTTP2_HEADER_STATUS]: body.statusCode, 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
    stream.end(JSON.stringify(body));
  }
}

function args(headers: IncomingHttpHeaders): Record<string, unknown> {
  try {
    return decodeStreamArgs(headers[TUNNEL_HEADERS.args]);
  } catch (err) {
    if (err instanceof TunnelProtocolError) throw new InvalidInputError(err.message);
    throw err;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
