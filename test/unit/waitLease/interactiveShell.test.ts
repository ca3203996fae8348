// Which processes are shells waiting at their prompt, from their name and arguments
// (core/waitLease/terminalJob.ts isInteractiveShell): a shell the pane runs at its prompt is
// nothing running, a shell running a script or a command is a job.
import assert from 'node:assert/strict';
import { isInteractiveShell } from '../../../src/core/waitLease/terminalJob.ts';

const shell = (...argv: string[]) => isInteractiveShell({ comm: argv[0]?.split('/').pop()?.replace(/^-/, ''), argv });

describe('isInteractiveShell', () => {
  it('a shell with no script or command is interactive: plain, login, with options and their values', () => {
    assert.equal(shell('bash'), true);
    assert.equal(shell('-zsh'), true, 'a login shell');
    assert.equal(shell('/bin/bash', '--norc', '--noprofile', '-i'), true);
    assert.equal(shell('bash', '--rcfile', '/tmp/nix-shell-1/rc'), true, "nix-shell's: the rc file is an option's value, not a script");
    assert.equal(shell('zsh', '-o', 'vi', '-l'), true);
    assert.equal(shell('fish', '--login'), true);
    assert.equal(shell('bash', '-s', 'one', 'two'), true, 'commands from the terminal, operands as arguments');
  });

  it('a shell running a script or a command is a job', () => {
    assert.equal(shell('bash', '-c', 'sleep 30'), false);
    assert.equal(shell('bash', '-lc', 'make'), false);
    assert.equal(shell('bash', '-i', '-c', 'make'), false, '-c wins wherever it stands');
    assert.equal(shell('sh', 'build.sh'), false);
    assert.equal(shell('bash', '--', 'build.sh'), false);
    assert.equal(shell('bash', '-x', 'build.sh', 'arg'), false);
    assert.equal(shell('fish', '--command=make'), false);
    assert.equal(isInteractiveShell({ comm: 'sh', argv: ['sh'], stdinIsTerminal: false }), false, 'sh < install.sh: its input is a file');
    assert.equal(isInteractiveShell({ comm: 'sh', argv: ['sh'], stdinIsTerminal: true }), true);
    assert.equal(isInteractiveShell({ comm: 'sh', argv: ['sh'], stdinIsTerminal: null }), true, 'where input cannot be read, the arguments decide');
  });

  it('other programs, and a shell whose arguments cannot be read, are not known to be a shell at its prompt', () => {
    assert.equal(shell('python3'), false);
    assert.equal(shell('node', 'repl.js'), false);
    assert.equal(isInteractiveShell({ comm: 'bash', argv: null }), false);
    assert.equal(isInteractiveShell({ comm: 'bash', argv: [] }), false);
    assert.equal(isInteractiveShell({ comm: 'bash', argv: ['/nix/store/abc-bash-5.2/bin/bash'] }), true, 'by its path');
  });
});
