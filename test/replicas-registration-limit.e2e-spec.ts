/**
 * REGISTRATION_RATE_LIMIT holds across replicas: the window is counted in the shared storage, so
 * requests from one address spread over replicas A and B are limited once, not once per replica.
 * The requests are the runtime's own POST /auth/device, raw: no catalog operation, the device's
 * side of the registration protocol.
 */
import { generateDeviceIdentity } from '@svc/common';
import { useReplicaFleet } from './fixtures/replica-fleet';
import { TEST_DEVICE_INFO } from './fixtures/test-server';

const LIMIT = 4;

describe('replicas on NATS: the registration rate limit', () => {
  const fleet = useReplicaFleet({ env: { REGISTRATION_RATE_LIMIT: String(LIMIT) } });

  it('admits REGISTRATION_RATE_LIMIT requests per address per minute over both replicas together, and answers the rest 429 RATE_LIMITED', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const api = i % 2 === 0 ? fleet.a.api : fleet.b.api;
      // Each request its own owner scope, so the pending-request caps stay out of the way.
      const answer = await api.post('/auth/device', { device_id: `limited-${i}`, owner_scope: `user:limit-${i}@replicas.test`, device_info: { hostname: `limited-${i}`, ...TEST_DEVICE_INFO }, public_key: generateDeviceIdentity().publicKey });
      statuses.push(answer.status);
      if (answer.status !== 201) expect(answer.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', requestId: expect.any(String) });
    }
    expect(statuses).toEqual([...Array<number>(LIMIT).fill(201), ...Array<number>(LIMIT).fill(429)]);
  });
});
