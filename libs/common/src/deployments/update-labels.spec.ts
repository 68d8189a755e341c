import { wantsImageUpdates } from './update-labels';

describe('wantsImageUpdates', () => {
  it.each([
    [{ 'io.svc.update': 'true' }, true],
    [{ 'com.centurylinklabs.watchtower.enable': 'true' }, true],
    [{ 'com.centurylinklabs.watchtower.enable': 'TRUE' }, true],
    [{ 'io.svc.update': '1' }, true],
    [{ 'io.svc.update': 'yes' }, false],
    [{ 'io.svc.update': 'false' }, false],
    [{ 'io.svc.update': 'false', 'com.centurylinklabs.watchtower.enable': 'true' }, false],
    [{ 'io.svc.update': 'true', 'com.centurylinklabs.watchtower.enable': 'false' }, true],
    [{ 'com.docker.compose.project': 'shop' }, false],
    [{}, false],
    [null, false],
  ])('%j → %s', (labels, expected) => expect(wantsImageUpdates(labels)).toBe(expected));
});
