/**
 * A throwaway OpenSSH server for the benchmarks (as test/fixtures/sshd.ts): loopback only, a free
 * port, fresh ed25519 host and user keys in `dir`, public-key login for the current user only.
 */
const { execFileSync, spawn } = require('node:child_process');
const { chmodSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { userInfo } = require('node:os');
const { join } = require('node:path');
const { createInterface } = require('node:readline');
const { freePort } = require('./server-process');

async function startSshd(dir) {
  const keys = join(dir, 'ssh');
  mkdirSync(keys, { recursive: true });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, 'user')]);
  writeFileSync(join(keys, 'authorized_keys'), readFileSync(join(keys, 'user.pub')));
  chmodSync(join(keys, 'authorized_keys'), 0o600);
  mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort();
  const config = join(keys, 'sshd_config');
  const user = userInfo().username;
  writeFileSync(config, [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(keys, 'host')}`, `AuthorizedKeysFile ${join(keys, 'authorized_keys')}`, `AllowUsers ${user}`, 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no', `PidFile ${join(keys, 'sshd.pid')}`, ''].join('\n'));
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('close', resolve));
  await new Promise((resolve, reject) => {
    const log = [];
    child.once('error', reject);
    exited.then(() => reject(new Error(`sshd exited before listening:\n${log.join('\n')}`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      log.push(line);
      if (line.startsWith('Server listening on')) resolve();
    });
  });
  return {
    port,
    user,
    clientOptions: ['-i', join(keys, 'user'), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

module.exports = { startSshd };
