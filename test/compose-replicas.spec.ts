/**
 * docker-compose.replicas.yml parses (YAML with merge keys, as Compose reads it; `docker compose`
 * is not installed here) and wires what docs/self-hosting.md says: NATS with JetStream, three
 * replicas on one NATS_URL with their own REPLICA_ID and PEER_ADDRESS, and HAProxy balancing every
 * replica's tunnel and REST ports from deploy/haproxy.cfg.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '..');

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: string[];
}

describe('docker-compose.replicas.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.replicas.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const { services } = compose;
  const replicas = ['server-a', 'server-b', 'server-c'];

  it('runs NATS with JetStream and three replicas on it, each its own id and peer address, one SERVER_SECRET', () => {
    expect(services.nats.command).toContain('-js');
    const envs = replicas.map((name) => services[name].environment!);
    for (const [i, env] of envs.entries()) {
      expect(env.NATS_URL).toBe('nats://nats:4222');
      expect(env.PEER_ADDRESS).toBe(replicas[i]);
      expect(env.DB_URI).toMatch(/^mongodb:\/\/mongo:27017\//);
    }
    expect(new Set(envs.map((env) => env.REPLICA_ID)).size).toBe(replicas.length);
    expect(new Set(envs.map((env) => env.SERVER_SECRET)).size).toBe(1);
  });

  it('puts HAProxy in front of every replica (tunnel 8084 and REST 8085), from a config file that exists', () => {
    expect(services.haproxy.depends_on).toEqual(replicas);
    const mount = services.haproxy.volumes!.find((v) => v.endsWith(':/usr/local/etc/haproxy/haproxy.cfg:ro'))!;
    const file = join(ROOT, mount.split(':')[0]);
    expect(existsSync(file)).toBe(true);
    const cfg = readFileSync(file, 'utf8');
    for (const name of replicas) {
      expect(cfg).toContain(`${name}:8084 check`);
      expect(cfg).toContain(`${name}:8085 check`);
    }
    expect(cfg).toMatch(/^\s*mode tcp$/m);
    expect(services.haproxy.ports).toEqual(expect.arrayContaining(['443:443/tcp', '8080:8080/tcp']));
  });
});
