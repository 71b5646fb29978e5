// The published surface: every entry point lists its exports by name, and
// each has a budget, so a name becomes public only by a deliberate change.

import assert from "node:assert/strict";

/**
 * The names each entry point exports, values and types together. A budget
 * is spent exactly: adding a name to an entry point fails here until its
 * budget is raised in the same commit, with the reason in the commit
 * message (is it something users need, or an internal helper that tests
 * can import from src/ directly?); removing one fails until the budget is
 * lowered, so no spare room lets a name in unnoticed.
 */
const BUDGETS: Record<string, number> = {
  // +2 here and on bridge.ts: ImportPolicy and ApprovalRule, the types of
  // requireApproval picking tools.
  // +6 (issue 18, input asked mid-call): answer, InputRequiredError,
  // setRequestStateKey, and the types InputHandler, InputResponse, PendingInput.
  // +4 (issue 21): the types a user reads a run and a server set with
  // (StepRecord, ToolCallPart, ToolResultPart, ServerStatus), on the main page.
  // +6 (issue 19, resource server): jwtVerifier, InvalidTokenError and the
  // types AuthInfo, ResourceAuthOptions, TokenVerifier, JwtVerifierOptions.
  // +7 (issue 19, OAuth client): oauthClient, AuthorizationError,
  // kvOAuthStore, oauthCallback and the types OAuthClientProvider (the
  // SDK's), OAuthClientOptions, OAuthStore.
  // +2 (issue 20): configureTracing, TracingOptions.
  // +2: Message and PendingCall, the transcript a host saves to resume a
  // parked run and the parked call it decides on, where it reads the run.
  // -15: OAuth on both sides moved to auth.ts (13 names); ToolCallPart and
  // ToolResultPart stay in core.ts (a transcript reader gets them from Message).
  // +1: ToolSearchOptions, the Agent's toolSearch (many tools, found by search).
  // +5 (issue 36): resource, resourceTemplate, exportResources, prompt,
  // exportPrompts — a server's documents and prompt templates beside its tools.
  // +3 (issue 39): code mode — CodeModeOptions (the Agent's codeMode), and
  // the Executor contract with its ExecuteResult.
  // +1 (issue 36): SamplingUnavailableError, what ctx.sample rejects with
  // when the client cannot be asked (instanceof, reason).
  "mod.ts": 69,
  // +4: the provider warning and response info of a step (ModelWarning,
  // ModelResponseInfo, WarningEvent, ModelWarningEvent).
  // +12 (issue 18, input asked mid-call): answer, AnswerDecision,
  // InputRequiredError and the input types (AskFn, AskRequest,
  // ElicitationParams, ElicitationRequest, InputAnswer, InputRequest,
  // InputResponse, OtherInputRequest, PendingInput).
  // +1 (issue 19): AuthInfo, the verified caller a tool sees as ctx.auth.
  // +2: ToolSearchOptions and SEARCH_TOOLS, the search tool's name.
  // +1: ApprovalRequest, the reason and diff an approval carries (pins).
  // +1: TaskSupport, a tool's taskSupport option.
  // +9 (issue 39): code mode's executor contract (Executor, ExecuteResult,
  // ExecuteOptions, ResolvedProvider, SandboxFn, TypeChecker, CheckResult,
  // CodeModeOptions) and identifierOf, the name a tool has in a program.
  // +11 (issue 36): ctx.log and ctx.sample's types — LogFn, LogLevel,
  // LogOptions, SampleFn, SampleRequest, SampleMessage, SampleContent,
  // SampleOptions, SampleResult — and SamplingUnavailableError with its
  // reason type.
  // +2 (issue 37): ToolView and AppEvent, the view a call produced as the
  // run records it (ToolResultPart.view) and emits it.
  "core.ts": 185,
  // +3 (issue 18): setRequestStateKey, InputHandler, InputContext.
  // +4: toolDigest and the pin types (PinReport, PinStore, ToolPins) of
  // importTools' pins.
  // +1: ServeAgentOptions (taskSupport of a served agent).
  // +20 (issue 36): the five of mod.ts and the types their options and
  // definitions are read by (resources, templates, prompts, completers).
  // +14 (issue 36, the import side): listResources, listResourceTemplates,
  // listPrompts, readResource, getPrompt, their failures ListLimitError and
  // ListResultError, and the types they return and take (Resource,
  // ResourceTemplate, Prompt, PromptArgument, ReadResourceResult,
  // GetPromptResult, ListOptions).
  // +1: ResourceListing, the fields a resource and a template share.
  "bridge.ts": 66,
  // 63: ListenAddress, what deno serve tells the handler's onListen.
  // +7 (issue 18): CacheHints, the cacheHints option of httpHandler and
  // serveStdio (modern-era cache hints); the era a client speaks and where it
  // is kept (ProtocolEra, EraInfo, ProtocolPreference, EraStore,
  // memoryEraStore) and the failure of a pinned or unreadable era
  // (ProtocolNegotiationError).
  // +8 (issue 19, resource server): jwtVerifier, InvalidTokenError, and the
  // types AuthInfo, ResourceAuthOptions, TokenVerifier, JwtVerifierOptions,
  // JwtAlgorithm, JsonWebKeySet.
  // +13 (issue 19, OAuth client): oauthClient, AuthorizationError,
  // kvOAuthStore, memoryOAuthStore, oauthCallback and the types OAuthClientProvider,
  // OAuthClientOptions, AuthorizationErrorReason, OAuthStore,
  // OAuthStoreEntry, OAuthStoreSetOptions, KvOAuthStoreOptions,
  // OAuthCallbackOptions.
  // +1 (issue 25): EraKeyValueStore, the key-value shape an eraStore had
  // alone before a contract store could go there too.
  // -21: the OAuth names above moved to auth.ts.
  // +1 (issue 34): SessionNotFoundError, connectHttp's failure when the
  // server forgets the new session it began after a 404.
  "runtime.ts": 72,
  "providers.ts": 7,
  // +3: CatalogOptions, DEFAULT_CATALOG_TTL_MS and StaleToolError, the
  // catalog option of connectServers and the failure of a changed tool.
  // +7 (trust): ServerPins, ShadowFinding, ServerPermissions and
  // describePermissions, and the failures EgressRefusedError, PinDriftError,
  // ServerPermissionError.
  // +4 (issue 36): ServerListError and the items a set's listings return
  // tagged with their server (ServerResource, ServerResourceTemplate,
  // ServerPrompt).
  "servers.ts": 33,
  "testing.ts": 15,
  // issue 37, MCP Apps: toolUi, appToolInfo, withAppsCapability,
  // APP_EXTENSION, APP_MIME_TYPE and the types AppServer, AppToolInfo,
  // AppVisibility, ToolUi, ToolAppOptions (a tool's `app` view); appHost,
  // AppHostHandler, AppHostOptions, AppServers, AppGateError, AppGate.
  // +2: AppRecord and RunRecord, what AppHostHandler.log returns.
  "apps.ts": 18,
  // 12: EnvSetting, the --env of a server command (CliCommand names it).
  "cli.ts": 12,
  // 23 (issue 25, one store contract): Store and its option, entry, log and
  // subscription types, isStore, STORE_NAMESPACES, StoreUnavailableError;
  // per adapter its factory, its options and the client shapes it takes
  // (memory 1, Deno KV 4, Redis 4, Postgres 3).
  "store.ts": 23,
  // 21: OAuth on both sides — the resource server's verify option (AuthInfo,
  // InvalidTokenError, ResourceAuthOptions, TokenVerifier, jwtVerifier and
  // its options and key types) and the OAuth client (oauthClient,
  // AuthorizationError and its reason, the token stores and their options,
  // oauthCallback and its options).
  "auth.ts": 21,
  // 5: serveTasks and its options, the task failures (TaskAccessError,
  // TaskCancelledError) and TaskSupport, the option a tool opts in with.
  // +10 (issue 34): the client side — taskClient and the TaskClient it
  // returns, RemoteTask and its RemoteTaskStatus, the typed failure
  // RemoteTaskError and its reason, and the options of its operations
  // (TaskRequestOptions, StartTaskOptions, TaskResultOptions,
  // ListTasksOptions), and RemoteTaskResult, the result it waits for.
  // +3 (issue 34): the refusals a caller's task may meet: TaskLimitError
  // (and which limit, TaskLimit) and TaskStoreUnavailableError.
  "tasks.ts": 19,
  // 18 (issue 39): code mode's executors — the subprocess and worker
  // executors (class, factory, options), the worker's refusal and its
  // probe, their Clock, and the executor contract shared with the core
  // (Executor, ExecuteResult, ExecuteOptions, ResolvedProvider, SandboxFn,
  // TypeChecker, CheckResult, CodeModeOptions, identifierOf).
  "sandbox.ts": 18,
  // 16 (issue 38): serving skills — serveSkills and loadSkills with their
  // options, the catalog and what it holds (SkillCatalog, ServedSkillFile,
  // SkillDirectoryChild, SkillSource, SkillFilesMap), the manifest shapes
  // (SkillEntry, SkillFileEntry, SkillFrontmatter), the extension's id and
  // limits, and the failures SkillLoadError and SkillChangedError. +9: the
  // host side — importSkills, its options and result (ImportedSkills,
  // ImportedSkill, SkillCollision) and the model-visible refusals
  // (SkillVerificationError and its reason, NoSuchSkillError,
  // SkillNotLoadedError).
  "skills.ts": 25,
};

const ROOT = new URL("../", import.meta.url);

async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  return Object.values(config.exports).map((e) => e.replace(/^\.\//, ""));
}

/** Comments become spaces, so a commented-out export is not counted. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[^]*?\*\//g, " ").replace(/^\s*\/\/.*$/gm, "");
}

/**
 * The names a module exports: those its `export { … }` and
 * `export type { … }` statements list, and its exported declarations.
 */
function exportedNames(text: string): string[] {
  const code = withoutComments(text);
  const names: string[] = [];
  for (const match of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of match[1].split(",")) {
      const name = item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop();
      if (name) names.push(name);
    }
  }
  const declaration =
    /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|interface|type|enum|namespace)\s+([\w$]+)/gm;
  for (const match of code.matchAll(declaration)) names.push(match[1]);
  return names;
}

Deno.test("every entry point exports its budgeted number of names", async () => {
  const entries = await entryPoints();
  assert.deepEqual(
    entries.slice().sort(),
    Object.keys(BUDGETS).sort(),
    "an entry point without a budget (or a budget without an entry point): add it to BUDGETS in tests/surface_test.ts",
  );
  const over: string[] = [];
  for (const entry of entries) {
    const names = exportedNames(
      await Deno.readTextFile(new URL(entry, ROOT)),
    );
    const twice = names.filter((n, i) => names.indexOf(n) !== i);
    assert.deepEqual(twice, [], `${entry} exports a name twice`);
    if (names.length !== BUDGETS[entry]) {
      over.push(`${entry}: ${names.length} names, budget ${BUDGETS[entry]}`);
    }
  }
  assert.deepEqual(
    over,
    [],
    "an entry point's export count moved. A new public name is a decision: " +
      "raise its budget in tests/surface_test.ts in the same commit and say " +
      "why (or keep the helper internal: tests import it from src/). A name " +
      "removed: lower the budget to the new count.",
  );
});

Deno.test("every entry point lists its exports by name, so the count is the whole surface", async () => {
  for (const entry of await entryPoints()) {
    const source = await Deno.readTextFile(new URL(entry, ROOT));
    assert.doesNotMatch(
      withoutComments(source),
      /^export\s+\*/m,
      `${entry}: export * (list the names)`,
    );
    assert.doesNotMatch(
      source,
      /^\/\/ ---/m,
      "no work-partition marker comments",
    );
    const module = await import(new URL(entry, ROOT).href) as Record<
      string,
      unknown
    >;
    const listed = new Set(exportedNames(source));
    const unlisted = Object.keys(module).filter((name) => !listed.has(name));
    assert.deepEqual(
      unlisted,
      [],
      `${entry} exports values its statements do not list`,
    );
  }
});

Deno.test("exportedNames: lists, renames, type-only items, declarations; not comments", () => {
  const text = [
    'export { a, type B, c as d } from "./x.ts";',
    'export type {\n  E,\n  F,\n} from "./y.ts";',
    "export function g(): void {}",
    "export async function h(): Promise<void> {}",
    "export class I {}",
    "export const j = 1;",
    "export interface K {}",
    "export type L = string;",
    '// export { m } from "./z.ts";',
    '/* export { n } from "./z.ts"; */',
    "function o(): void {}",
  ].join("\n");
  assert.deepEqual(exportedNames(text), [
    "a",
    "B",
    "d",
    "E",
    "F",
    "g",
    "h",
    "I",
    "j",
    "K",
    "L",
  ]);
});

Deno.test("every entry point opens with a module doc and carries no marker comments", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ) as { exports: Record<string, string> };
  for (const entry of Object.values(config.exports)) {
    const text = await Deno.readTextFile(
      new URL(`../${entry}`, import.meta.url),
    );
    assert.match(text, /^\/\*\*\n \* [^@][^]*?\n \* @module\n \*\//, entry);
    assert.doesNotMatch(text, /^\/\/ ---/m, entry);
  }
});

Deno.test("the published pages and sources name no ADR (those are maintainers' notes)", async () => {
  const root = new URL("../", import.meta.url);
  const offenders: string[] = [];
  async function walk(dir: URL, rel: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = rel + entry.name;
      if (entry.isDirectory) {
        if (["adr", "maintainers", "node_modules"].includes(entry.name)) {
          continue;
        }
        await walk(new URL(entry.name + "/", dir), path + "/");
      } else if (/\.(md|ts)$/.test(entry.name)) {
        const text = await Deno.readTextFile(new URL(entry.name, dir));
        if (/\bADR \d{4}\b/.test(text)) offenders.push(path);
      }
    }
  }
  await walk(new URL("docs/", root), "docs/");
  await walk(new URL("src/", root), "src/");
  for (const file of ["README.md", "mod.ts"]) {
    const text = await Deno.readTextFile(new URL(file, root));
    if (/\bADR \d{4}\b/.test(text)) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});
