// Times Gemini CLI's own hook machinery (HookSystem from the pinned
// @google/gemini-cli-core) firing BeforeTool, for benches/hosts.rs.
//
//   node gemini_bench.mjs PROJ      (cwd: the package's install dir)
//
// It loads the `hooks` of PROJ/.gemini/settings.json into a Config as
// gemini_driver.mjs does (one file only: the bench writes no user settings),
// initialises the HookSystem once, then reads lines on stdin: for a line `N`
// it fires N BeforeTool events for run_shell_command, one after another, and
// answers one line with the nanoseconds they took together. Each event runs
// whatever hooks match it, as the scheduler would before a shell call; the
// tool itself is not run. An empty line or the end of stdin ends it.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';

const require = createRequire(join(process.cwd(), 'package.json'));
const { Config, HookSystem } = await import(require.resolve('@google/gemini-cli-core'));

const proj = process.argv[2];
const path = join(proj, '.gemini', 'settings.json');
const hooks = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).hooks ?? {} : {};

console.debug = () => {};
// The package logs on stdout; the answers are the only lines written here.
const answer = process.stdout.write.bind(process.stdout);
console.log = console.info = () => {};
const config = new Config({
  sessionId: 'bench-session',
  targetDir: proj,
  cwd: proj,
  debugMode: false,
  model: 'gemini-2.5-flash',
  usageStatisticsEnabled: false,
  trustedFolder: true,
  hooks,
  enableHooks: true,
});
await config.storage.initialize();
const system = new HookSystem(config);
await system.initialize();
const handler = system.getEventHandler();

for await (const line of createInterface({ input: process.stdin })) {
  const n = Number.parseInt(line, 10);
  if (!Number.isFinite(n) || n <= 0) break;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    await handler.fireBeforeToolEvent('run_shell_command', { command: 'echo x' });
  }
  answer(`${process.hrtime.bigint() - start}\n`);
}
process.exit(0);
