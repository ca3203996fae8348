// Process entry of the `leasehold` command (bundled to dist/cli/leasehold.js). `leasehold hook`
// short-circuits before commander and everything else is loaded: Claude Code runs it for
// every hooked event (the installed hooks call dist/cli/hook.js directly; this is the same path).
const args = process.argv.slice(2);

if (args[0] === 'hook') {
  const { runHookProcess } = await import('./hookMain.ts');
  runHookProcess(args);
} else {
  const { main } = await import('./main.ts');
  main(args).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`leasehold: ${String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
