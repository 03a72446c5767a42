// Gemini CLI's own hook machinery (HookSystem from the pinned
// @google/gemini-cli-core), driven through one scripted turn the way the CLI
// drives it, printing what the CLI would have done as one JSON object.
//
//   node gemini_driver.mjs SPEC.json OUT.json      (cwd: the package's install dir)
//
// SPEC: {"home": DIR, "proj": DIR, "prompt": TEXT, "calls": [{"name", "input"}],
//        "response": TEXT (the model's last text, for AfterAgent)}
//
// What is Gemini's and what is ours:
// - Gemini's: the Config, the HookRegistry / planner / runner / aggregator
//   (matchers, dedup, sequential, exit codes, timeouts, merging), the output
//   classes that say block / stop / rewrite / context, and the shell tool's
//   own `build` that validates a rewritten input.
// - Ours, read from the installed sources and written down here: what the
//   CLI does with the aggregated answer (core/client.js for BeforeAgent,
//   scheduler/hook-utils.js + scheduler.js for BeforeTool, where a rewrite
//   REPLACES the arguments, core/coreToolHookTriggers.js for AfterTool), and
//   the settings layering of the CLI package (not part of the core package):
//   the `hooks` of ~/.gemini/settings.json then <proj>/.gemini/settings.json
//   concatenated per event, `hooksConfig.disabled` united, and
//   `hooksConfig.enabled` taken from the later file that sets it (project over
//   user). Only those two files are read (no system files, no extensions).
// - The tool itself is not Gemini's: an allowed run_shell_command is run with
//   `bash -c` in the project, and its stdout is the result handed to AfterTool.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

// Import the package installed in the current directory (run.py's cache).
const require = createRequire(join(process.cwd(), 'package.json'));
const core = await import(require.resolve('@google/gemini-cli-core'));
const { Config, HookSystem, ShellTool } = core;

// `node gemini_driver.mjs --build ARGS.json PROJ`: only the shell tool's own
// `build` (its parameter check) on ARGS, printed as {"error": TEXT or null}.
// gemini.py's observe_ours asks it about the arguments tower-hooks handed
// back, as the scheduler asks the tool about a hook's tool_input.
if (process.argv[2] === '--build') {
  const args = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  console.debug = () => {};
  const config = new Config({
    sessionId: 'conformance-session',
    targetDir: process.argv[4],
    cwd: process.argv[4],
    debugMode: false,
    model: 'gemini-2.5-flash',
    usageStatisticsEnabled: false,
    trustedFolder: true,
  });
  await config.storage.initialize();
  let error = null;
  try {
    new ShellTool(config, config.getMessageBus()).build(args);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  process.stdout.write(JSON.stringify({ error }));
  process.exit(0);
}

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));

function settings(dir) {
  const path = join(dir, '.gemini', 'settings.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

// The CLI's layering of the two files (see the note at the top).
const layers = [settings(spec.home), settings(spec.proj)];
const hooks = {};
const disabled = [];
let enabled = true;
for (const layer of layers) {
  for (const [event, definitions] of Object.entries(layer.hooks ?? {})) {
    hooks[event] = [...(hooks[event] ?? []), ...(Array.isArray(definitions) ? definitions : [definitions])];
  }
  for (const name of layer.hooksConfig?.disabled ?? []) {
    if (!disabled.includes(name)) disabled.push(name);
  }
  if (typeof layer.hooksConfig?.enabled === 'boolean') enabled = layer.hooksConfig.enabled;
}

// The CLI's console patcher drops debug output unless asked for it.
console.debug = () => {};
const config = new Config({
  sessionId: 'conformance-session',
  targetDir: spec.proj,
  cwd: spec.proj,
  debugMode: false,
  model: 'gemini-2.5-flash',
  usageStatisticsEnabled: false,
  trustedFolder: true,
  hooks,
  disabledHooks: disabled,
  enableHooks: enabled,
});
await config.storage.initialize();
let handler = null;
let system = null;
if (config.getEnableHooks()) {
  // What Config.initialize() does for hooks (the rest of it needs a model login).
  system = new HookSystem(config);
  await system.initialize();
  handler = system.getEventHandler();
}

// Fires one event; `{final, messages}`: the aggregated answer (a hook output
// object, or null) and the systemMessages the CLI shows the person, one per
// hook that gave one (hookEventHandler emits them per result).
async function fire(method, ...args) {
  if (!handler) return { final: null, messages: [] };
  const aggregated = await handler[method](...args);
  const messages = aggregated.allOutputs.map((o) => o.systemMessage).filter((m) => typeof m === 'string' && m);
  return { final: aggregated.finalOutput ?? null, messages };
}

const out = { session: null, agent: null, model: null, calls: [], end: null };

// SessionStart at startup: the CLI ignores a decision here; what the hooks
// give is context and messages for the person.
{
  const { final, messages } = await fire('fireSessionStartEvent', 'startup');
  out.session = { context: final?.getAdditionalContext() ?? null, user_messages: messages };
}

// BeforeAgent, as GeminiClient.sendMessageStream handles it.
{
  const { final, messages } = await fire('fireBeforeAgentEvent', spec.prompt);
  const agent = { outcome: 'proceed', reason: null, context: null, user_messages: messages };
  if (final?.shouldStopExecution()) {
    Object.assign(agent, { outcome: 'stop', reason: final.getEffectiveReason() });
  } else if (final?.isBlockingDecision()) {
    Object.assign(agent, { outcome: 'block', reason: final.getEffectiveReason() });
  } else {
    agent.context = final?.getAdditionalContext() ?? null;
  }
  out.agent = agent;
}

// BeforeModel before the turn's first model call, read through HookSystem's
// own fireBeforeModelEvent (what geminiChat calls): blocked, stopped, or the
// model the (possibly rewritten) request names.
if (out.agent.outcome === 'proceed') {
  const request = { model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: spec.prompt }] }], config: {} };
  const seen = { outcome: 'proceed', reason: null, model: request.model };
  const answer = system ? await system.fireBeforeModelEvent(request) : { blocked: false };
  if (answer.stopped) Object.assign(seen, { outcome: 'stop', reason: answer.reason });
  else if (answer.blocked) Object.assign(seen, { outcome: 'block', reason: answer.reason });
  else if (answer.modifiedModel) seen.model = answer.modifiedModel;
  out.model = seen;
}

const shell = new ShellTool(config, config.getMessageBus());
const modelGoesOn = out.agent.outcome === 'proceed' && out.model.outcome === 'proceed';
for (const call of modelGoesOn ? spec.calls : []) {
  const seen = { before: 'proceed', reason: null, model_text: null, tool_input: call.input, after: null, context: null, user_messages: [] };
  out.calls.push(seen);
  // BeforeTool, as scheduler/hook-utils.js evaluateBeforeToolHook reads it.
  const before = await fire('fireBeforeToolEvent', call.name, { ...call.input });
  seen.user_messages.push(...before.messages);
  const b = before.final;
  if (b?.shouldStopExecution()) {
    Object.assign(seen, { before: 'stop', reason: b.getEffectiveReason(), model_text: `Agent execution stopped by hook: ${b.getEffectiveReason()}` });
    break; // STOP_EXECUTION ends the agent's turn
  }
  const blocking = b?.getBlockingError();
  if (blocking?.blocked) {
    Object.assign(seen, { before: 'block', reason: blocking.reason, model_text: `Tool execution blocked: ${blocking.reason}` });
    continue;
  }
  if (b?.isAskDecision()) seen.before = 'ask';
  const modified = typeof b?.getModifiedToolInput === 'function' ? b.getModifiedToolInput() : undefined;
  let args = call.input;
  if (modified) {
    // The scheduler rebuilds the call from the hook's tool_input alone.
    try {
      shell.build(modified);
    } catch (error) {
      Object.assign(seen, { before: 'invalid', model_text: `Tool parameter modification by hook failed validation: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    args = modified;
  }
  seen.tool_input = args;
  if (seen.before === 'ask') continue; // headless: nobody answers the question
  // The tool (ours, see the top): the shell command.
  const ran = call.name === 'run_shell_command'
    ? spawnSync('bash', ['-c', String(args.command ?? '')], { cwd: spec.proj, encoding: 'utf8', timeout: 60000 })
    : { stdout: '' };
  const result = ran.stdout ?? '';
  // AfterTool, as core/coreToolHookTriggers.js executeToolWithHooks reads it.
  const after = await fire('fireAfterToolEvent', call.name, args, { llmContent: result, returnDisplay: result, error: undefined });
  seen.user_messages.push(...after.messages);
  const a = after.final;
  if (a?.shouldStopExecution()) {
    Object.assign(seen, { after: 'stop', reason: a.getEffectiveReason(), model_text: `Agent execution stopped by hook: ${a.getEffectiveReason()}` });
    break;
  }
  const hidden = a?.getBlockingError();
  if (hidden?.blocked) {
    Object.assign(seen, { after: 'block', reason: hidden.reason, model_text: `Tool result blocked: ${hidden.reason}` });
    continue;
  }
  seen.context = a?.getAdditionalContext() ?? null;
}

// AfterAgent, as GeminiClient.sendMessageStream reads it once the turn has no
// pending tool call (not after a stop or a blocked prompt). A block sends its
// reason back as the next prompt (a continuation turn, whose own BeforeAgent
// this driver does not replay); the scripted model answers that turn with the
// same text and no tool call, and AfterAgent fires again with
// stop_hook_active true.
const stopped = !modelGoesOn || out.calls.some((c) => c.before === 'stop' || c.after === 'stop');
if (!stopped) {
  const response = spec.response ?? 'done';
  const end = { outcome: 'done', reason: null, retry: null, user_messages: [] };
  const first = await fire('fireAfterAgentEvent', spec.prompt, response, false);
  end.user_messages.push(...first.messages);
  const verdict = (final) => {
    if (final?.shouldStopExecution()) return ['stop', final.getEffectiveReason()];
    if (final?.isBlockingDecision()) return ['block', final.getEffectiveReason()];
    return ['done', null];
  };
  [end.outcome, end.reason] = verdict(first.final);
  if (end.outcome === 'block') {
    const again = await fire('fireAfterAgentEvent', spec.prompt, response, true);
    end.user_messages.push(...again.messages);
    end.retry = verdict(again.final)[0];
  }
  out.end = end;
}

// The package logs to stdout on its own; the answer goes to its own file.
writeFileSync(process.argv[3], JSON.stringify(out) + '\n');
process.exit(0);
