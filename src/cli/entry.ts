// Process entry of the `leasehold` command (bundled to dist/cli/leasehold.js).
import { main } from './main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`leasehold: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
