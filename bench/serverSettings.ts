// What each of the lease server's process settings (src/runtime/serverMemory.ts) is worth:
// the server as shipped against the same server without one setting, for each setting. Per
// variant: resident memory after the RSS target's load (10,000 todos + 1,000 wait-leases over
// HTTP), REST requests/s and server CPU per request during that load, then MCP claim_next
// through the real SDK client in a process of its own (as Claude Code is), median latency and
// the server's CPU per claim+complete, then REST requests/s again with the server warm. Fresh
// processes, variants alternating round by round.
// Run: `npm run bench -- serverSettings` (LEASEHOLD_BENCH_ROUNDS rounds, default 5).
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../src/runtime/serverMemory.ts';
import { MCP_CLAIMS } from './claims.ts';
import { bundleServer, cpuMs, inParallel, RSS_LOAD_REQUESTS, rssLoad, startBundledServer } from './support/bundledServer.ts';
import { lastJsonLine } from './support/childJson.ts';
import { MCP_WARMUP } from './support/mcpSdkFloor.ts';
import { median, report, rssMb } from './stats.ts';

const WARM_REQUESTS = 5000;

interface Variant {
  name: string;
  flags: string[];
  env: Record<string, string>;
}

interface RoundFigures {
  rssMb: number;
  restPerS: number;
  restCpuUs: number;
  mcpMedianMs: number;
  mcpCpuUs: number;
  rssAfterMcpMb: number;
  warmRestPerS: number;
}

/** The shipped settings, then the shipped settings less each one of them. */
function variants(): Variant[] {
  const shipped: Variant = { name: 'shipped', flags: [...SERVER_NODE_FLAGS], env: { ...SERVER_ENV } };
  const lessFlag = SERVER_NODE_FLAGS.map((flag) => ({ name: `without ${flag}`, flags: SERVER_NODE_FLAGS.filter((other) => other !== flag), env: { ...SERVER_ENV } }));
  // Left unset in the server's environment: unset is glibc's default; an empty value would not be.
  const lessEnv = Object.keys(SERVER_ENV).map((name) => ({ name: `without ${name}`, flags: [...SERVER_NODE_FLAGS], env: Object.fromEntries(Object.entries(SERVER_ENV).filter(([other]) => other !== name)) }));
  return [shipped, ...lessFlag, ...lessEnv];
}

async function measure(bundle: string, variant: Variant): Promise<RoundFigures> {
  const server = await startBundledServer(bundle, variant.flags, variant.env, Object.keys(SERVER_ENV).filter((name) => !(name in variant.env)));
  try {
    const pid = server.child.pid!;
    let cpuBefore = cpuMs(pid);
    const started = performance.now();
    await rssLoad(server.human);
    const restSeconds = (performance.now() - started) / 1000;
    const restCpu = cpuMs(pid) - cpuBefore;
    const rss = rssMb(pid);
    const claims = MCP_WARMUP + MCP_CLAIMS;
    await inParallel(claims, (index) => server.human.createTodo({ queue: 'bench', title: `claim ${index}` }));
    cpuBefore = cpuMs(pid);
    const latencies = await lastJsonLine<number[]>(fileURLToPath(new URL('./support/mcpClaimClient.ts', import.meta.url)), [server.url, String(claims)], server.endpointToken);
    const mcpCpu = cpuMs(pid) - cpuBefore;
    const rssAfterMcp = rssMb(pid);
    // The same requests again, the server warm: what a setting costs once the JIT has settled.
    const warmStarted = performance.now();
    await inParallel(WARM_REQUESTS, (index) => server.human.createTodo({ queue: `warm${index % 10}`, title: `warm ${index}` }));
    const warmSeconds = (performance.now() - warmStarted) / 1000;
    return {
      rssMb: rss,
      restPerS: RSS_LOAD_REQUESTS / restSeconds,
      restCpuUs: (restCpu * 1000) / RSS_LOAD_REQUESTS,
      mcpMedianMs: median(latencies.slice(MCP_WARMUP)),
      mcpCpuUs: (mcpCpu * 1000) / claims,
      rssAfterMcpMb: rssAfterMcp,
      warmRestPerS: WARM_REQUESTS / warmSeconds,
    };
  } finally {
    server.stop();
  }
}

export async function benchServerSettings(): Promise<void> {
  const rounds = Number(process.env.LEASEHOLD_BENCH_ROUNDS ?? 5);
  const all = variants();
  process.stdout.write(`# server process settings, ${rounds} rounds (load ${loadavg().map((load) => load.toFixed(1)).join(' ')} on 2 cores)\n`);
  const bundle = await bundleServer();
  const figures = new Map<string, RoundFigures[]>(all.map((variant) => [variant.name, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      // Each round starts with a different variant, so none always runs first.
      for (let index = 0; index < all.length; index++) {
        const variant = all[(index + round) % all.length]!;
        figures.get(variant.name)!.push(await measure(bundle.path, variant));
      }
      process.stdout.write(`  round ${round + 1}/${rounds} done, load ${loadavg()[0]!.toFixed(1)}\n`);
    }
  } finally {
    bundle.remove();
  }
  const shipped = figures.get('shipped')!;
  const mid = (list: RoundFigures[], key: keyof RoundFigures) => median(list.map((figure) => figure[key]));
  for (const variant of all) {
    const list = figures.get(variant.name)!;
    const ratio = (key: keyof RoundFigures) => (variant.name === 'shipped' ? '' : ` (${(mid(list, key) / mid(shipped, key)).toFixed(2)}×)`);
    report(`  ${variant.name} [${[...variant.flags, ...Object.entries(variant.env).map(([name, value]) => `${name}=${value}`)].join(' ')}]`, {});
    report('    medians of the rounds', {
      'RSS after 10,000 todos + 1,000 wait-leases (MB)': `${mid(list, 'rssMb').toFixed(1)}${ratio('rssMb')}`,
      'REST req/s': `${mid(list, 'restPerS').toFixed(0)}${ratio('restPerS')}`,
      'server CPU/req (µs)': `${mid(list, 'restCpuUs').toFixed(0)}${ratio('restCpuUs')}`,
      'MCP claim_next median (ms)': `${mid(list, 'mcpMedianMs').toFixed(2)}${ratio('mcpMedianMs')}`,
      'server CPU/claim+complete (µs)': `${mid(list, 'mcpCpuUs').toFixed(0)}${ratio('mcpCpuUs')}`,
      'RSS after MCP (MB)': `${mid(list, 'rssAfterMcpMb').toFixed(1)}${ratio('rssAfterMcpMb')}`,
      'REST req/s, warm': `${mid(list, 'warmRestPerS').toFixed(0)}${ratio('warmRestPerS')}`,
    });
    report('    rounds', {
      'RSS (MB)': list.map((figure) => figure.rssMb.toFixed(1)).join(' '),
      'REST req/s': list.map((figure) => figure.restPerS.toFixed(0)).join(' '),
      'MCP (ms)': list.map((figure) => figure.mcpMedianMs.toFixed(2)).join(' '),
      'REST req/s, warm': list.map((figure) => figure.warmRestPerS.toFixed(0)).join(' '),
    });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchServerSettings();
  process.exit(0);
}
