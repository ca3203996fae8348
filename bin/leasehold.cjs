#!/usr/bin/env node
// The `leasehold` command. Needs Node 22.13+ (node:sqlite); says so plainly otherwise.
'use strict';
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(`leasehold needs Node.js 22.13 or later (this is ${process.version}).\n`);
  process.exit(1);
}
import('../dist/cli/leasehold.js');
