import { Flags } from '@oclif/core';
import { escapeControls, EVENT_STREAM_RESET, FLEET_EVENT_TYPES } from '@svc/common';
import { SvcCommand } from '../base-command';
import { eventLine } from '../output/event-lines';
import { write } from '../output/json-stream';
import { escapeTerminal } from '../output/terminal-text';
import { followEvents } from '../sdk/event-stream';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export default class Events extends SvcCommand<typeof Events> {
  static override summary = 'Follow what happens to the devices you can see: online, offline, registrations, deployments, access.';
  static override description = `Follows the server's event stream (GET /events) until Ctrl-C (or SIGTERM), which ends it normally: exit 0. Only events of devices and organizations you may see arrive, decided by the server at the moment it sends them.

One line per event (names from devices are escaped); --json prints one JSON object per line instead, as the server sent it ({type, at, device_id, device, …}; docs/dashboard.md lists the fields). When the stream drops, svc reconnects where it left off (Last-Event-ID); if the server no longer has the events in between, a "reset" event says so: reload what you keep. --type keeps only the given types (a reset always passes).`;
  static override examples = ['<%= config.bin %> events', '<%= config.bin %> events --json', '<%= config.bin %> events --type device.offline --type registration.pending'];
  static override flags = {
    type: Flags.string({ description: 'only events of this type (repeatable)', options: [...FLEET_EVENT_TYPES], multiple: true }),
  };

  async run(): Promise<undefined> {
    const wanted = new Set<string>([...(this.flags.type ?? FLEET_EVENT_TYPES), EVENT_STREAM_RESET]);
    const json = this.jsonEnabled();
    const stop = new AbortController();
    const abort = () => stop.abort();
    for (const signal of STOP_SIGNALS) process.once(signal, abort);
    process.stdout.once('error', abort);
    try {
      const events = followEvents(this.client, {
        signal: stop.signal,
        onDrop: (reason, retryMs) => process.stderr.write(`svc: the event stream dropped (${escapeTerminal(reason)}); reconnecting in ${retryMs / 1000} s\n`),
      });
      for await (const event of events) {
        if (!wanted.has(event.type)) continue;
        await write(process.stdout, `${json ? escapeControls(JSON.stringify(event.data)) : eventLine(event)}\n`);
      }
    } finally {
      for (const signal of STOP_SIGNALS) process.off(signal, abort);
      process.stdout.off('error', abort);
    }
    return undefined;
  }
}
