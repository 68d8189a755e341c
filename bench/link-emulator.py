#!/usr/bin/env python3
"""
A device link for bench/carrier-links.js: two TUN devices joined by this process, which delays,
drops and rate-limits every IP packet between them, each direction on its own, as `tc netem`
would (this machine's kernel has no sch_netem; Node cannot create a TUN device, Python can).

  link-emulator.py <tun-a> <tun-b>   (run inside the network namespace that gets <tun-a>)

Creates both devices in the current namespace and prints "ready"; the caller then moves <tun-b>
to the other namespace and gives both their addresses. Each line on stdin sets the link:
  <rtt ms> <loss %> <rate Mbit/s, 0 = unlimited>
Per direction: a packet is lost with probability loss, else waits for the link (serialized at
the rate, tail-dropped beyond QUEUE_MS of backlog), then half the RTT. Exits when stdin closes.
"""
import collections
import fcntl
import os
import random
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
QUEUE_MS = 100  # bottleneck buffer: this much backlog at the link rate, then tail drop


def open_tun(name):
    fd = os.open('/dev/net/tun', os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Direction:
    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.queue = collections.deque()  # (release time, packet), in release order
        self.free_at = 0.0
        self.sent = self.lost = self.dropped = 0

    def take(self, packet, link, now):
        if link['loss'] > 0 and random.random() < link['loss']:
            self.lost += 1
            return
        start = max(now, self.free_at)
        if link['rate'] > 0:
            if start - now > QUEUE_MS / 1000:
                self.dropped += 1
                return
            self.free_at = start + len(packet) * 8 / link['rate']
        else:
            self.free_at = start
        self.queue.append((self.free_at + link['delay'], packet))

    def release(self, now):
        while self.queue and self.queue[0][0] <= now:
            _, packet = self.queue.popleft()
            try:
                os.write(self.dst, packet)
                self.sent += 1
            except OSError:  # full (EAGAIN) or not up yet (EIO): lost, as on a wire
                self.dropped += 1


def main():
    a, b = open_tun(sys.argv[1]), open_tun(sys.argv[2])
    link = {'delay': 0.0, 'loss': 0.0, 'rate': 0.0}
    ways = {a: Direction(a, b), b: Direction(b, a)}
    print('ready', flush=True)
    stdin = sys.stdin.fileno()
    while True:
        now = time.monotonic()
        due = [d.queue[0][0] for d in ways.values() if d.queue]
        timeout = max(0.0, min(due) - now) if due else 1.0
        readable, _, _ = select.select([a, b, stdin], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            if fd == stdin:
                line = sys.stdin.readline()
                if not line:
                    return
                if line.strip() == 'stats':
                    print(' '.join(f'{d.sent}/{d.lost}/{d.dropped}' for d in ways.values()), flush=True)
                    continue
                rtt, loss, rate = (float(x) for x in line.split())
                link.update(delay=rtt / 2000, loss=loss / 100, rate=rate * 1e6)
                print('ok', flush=True)
                continue
            for _ in range(64):  # drain what is there, a bounded batch per wake-up
                try:
                    packet = os.read(fd, 65535)
                except BlockingIOError:
                    break
                ways[fd].take(packet, link, now)
        now = time.monotonic()
        for d in ways.values():
            d.release(now)


if __name__ == '__main__':
    main()
