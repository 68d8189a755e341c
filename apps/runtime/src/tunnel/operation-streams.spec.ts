import { EventEmitter } from 'node:events';
import { OperationStreams } from './operation-streams';

describe('OperationStreams: draining a tunnel the server closed', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('hangs up on the next turn when no operation is in flight', () => {
    const streams = new OperationStreams();
    const hangUp = jest.fn();
    streams.drain(hangUp);
    expect(hangUp).not.toHaveBeenCalled();
    jest.runOnlyPendingTimers();
    expect(hangUp).toHaveBeenCalledTimes(1);
  });

  it('waits for the operations in flight and hangs up once the last one closed', () => {
    const streams = new OperationStreams();
    const [first, second] = [new EventEmitter(), new EventEmitter()];
    streams.track(first);
    streams.track(second);
    const hangUp = jest.fn();
    streams.drain(hangUp);
    first.emit('close');
    jest.advanceTimersByTime(1000);
    expect(hangUp).not.toHaveBeenCalled();
    expect(streams.busy()).toBe(true);
    second.emit('close');
    expect(hangUp).toHaveBeenCalledTimes(1);
    expect(streams.busy()).toBe(false);
    jest.runOnlyPendingTimers();
    expect(hangUp).toHaveBeenCalledTimes(1);
  });

  it('hangs up after the drain time however long an operation runs', () => {
    const streams = new OperationStreams();
    const shell = new EventEmitter();
    streams.track(shell);
    const hangUp = jest.fn();
    streams.drain(hangUp, 10_000);
    jest.advanceTimersByTime(9_999);
    expect(hangUp).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(hangUp).toHaveBeenCalledTimes(1);
    shell.emit('close');
    expect(hangUp).toHaveBeenCalledTimes(1);
  });

  it('does not hang up once the tunnel went another way (stop)', () => {
    const streams = new OperationStreams();
    const exec = new EventEmitter();
    streams.track(exec);
    const hangUp = jest.fn();
    streams.drain(hangUp);
    streams.stop();
    exec.emit('close');
    jest.runOnlyPendingTimers();
    expect(hangUp).not.toHaveBeenCalled();
  });
});
