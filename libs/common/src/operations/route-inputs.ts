/**
 * The input of every REST route outside the operations, by name: each route of ROUTES
 * (routes.ts), and POST /api/tickets' device and stream (the terminal's own route, whose stream
 * arguments are that stream's catalog `args`). The server checks them with the same ajv path as
 * an operation's (operation-input.ts).
 */
import { ParamSpec, str } from './contract';
import { RouteName, ROUTES } from './routes';

type RouteParams = { [N in RouteName]: (typeof ROUTES)[N]['params'] };

export const ROUTE_INPUTS = {
  ...(Object.fromEntries(Object.entries(ROUTES).map(([name, route]) => [name, route.params])) as RouteParams),
  /** POST /api/tickets: the device and the stream a browser's terminal ticket opens. */
  terminal_ticket: {
    device: str('device id or name', { minLength: 1, maxLength: 256 }),
    operation: str('the stream the ticket opens', { enum: ['device_shell', 'device_exec'] }),
  },
} satisfies Record<string, Record<string, ParamSpec>>;

export type RouteInputName = keyof typeof ROUTE_INPUTS;
