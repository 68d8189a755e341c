import type { PublishedStatus } from '../supervisor/runtime-status';
import { startState, UnitProperties } from './service-start';

const PID = 4242;
const status = (state: PublishedStatus['state']): PublishedStatus => ({
  pid: PID,
  started_at: '2026-01-01T00:00:00.000Z',
  server: 'https://svc.example.com',
  state,
  device_id: 'edge-1',
  carrier: state === 'online' ? 'quic' : null,
  connected_at: null,
  updated_at: '2026-01-01T00:00:01.000Z',
});
const holding = (state: PublishedStatus['state'], pid = PID) => ({ running: true as const, pid, lock: '/x/runtime.lock', status: status(state) });
const active: UnitProperties = { ActiveState: 'active', SubState: 'running', MainPID: String(PID), NRestarts: '0' };
const registered = { state: 'registered' };
const pending = { state: 'pending', request_id: 'req_7' };

describe('where a just-started unit stands (what `svc runtime enable` reports)', () => {
  it.each([
    ['online', active, holding('online'), registered, { state: 'running', pid: PID, detail: 'online over quic' }],
    ['waiting for approval', active, holding('registering'), pending, { state: 'running', pid: PID, detail: 'waiting for approval: svc devices approve req_7' }],
    // A key it holds may still be refused (exit 3) once it connects: not yet "running".
    ['connecting with a key', active, holding('connecting'), registered, { state: 'up', pid: PID, detail: 'not online yet: connecting (https://svc.example.com)' }],
    ['registering with a key', active, holding('registering'), registered, { state: 'up', pid: PID }],
    ['lock held by another process', active, holding('online', 999), registered, { state: 'starting' }],
    ['no lock yet', active, { running: false as const }, registered, { state: 'starting', detail: 'systemd: active/running' }],
    ['systemd still activating', { ActiveState: 'activating', SubState: 'start', MainPID: '0' }, { running: false as const }, registered, { state: 'starting' }],
  ])('%s', (_name, unit, runtime, registration, expected) => {
    expect(startState(unit, runtime, registration)).toMatchObject(expected);
  });

  it.each([
    ['exit 4, not restarted', { ActiveState: 'failed', SubState: 'failed', Result: 'exit-code', ExecMainCode: '1', ExecMainStatus: '4' }, 'it exited with status 4 (another runtime is already running); systemd does not restart it after that'],
    ['exit 3, not restarted', { ActiveState: 'failed', SubState: 'failed', Result: 'exit-code', ExecMainCode: '1', ExecMainStatus: '3' }, 'it exited with status 3 (the server refused the API key); systemd does not restart it after that'],
    ['exit 2, not restarted', { ActiveState: 'failed', Result: 'exit-code', ExecMainCode: '1', ExecMainStatus: '2' }, 'it exited with status 2 (bad usage or configuration); systemd does not restart it after that'],
    ['exit 1, about to restart', { ActiveState: 'activating', SubState: 'auto-restart', Result: 'exit-code', ExecMainCode: '1', ExecMainStatus: '1' }, 'it exited with status 1 (failed); systemd restarts it every 5 s, up to 3 times within 60 s'],
    ['killed, about to restart', { ActiveState: 'activating', SubState: 'auto-restart', Result: 'signal', ExecMainCode: '2', ExecMainStatus: '9' }, 'it was killed by signal 9; systemd restarts it every 5 s, up to 3 times within 60 s'],
    ['start limit hit', { ActiveState: 'failed', Result: 'start-limit-hit', ExecMainCode: '1', ExecMainStatus: '1' }, 'it failed 3 times within 60 s and systemd stopped restarting it'],
    ['restarted since', { ...active, NRestarts: '1', ExecMainCode: '0', ExecMainStatus: '0' }, 'it stopped; systemd restarts it every 5 s, up to 3 times within 60 s'],
  ])('%s: failed', (_name, unit, detail) => {
    expect(startState(unit, holding('online'), registered)).toEqual({ state: 'failed', detail });
  });
});
