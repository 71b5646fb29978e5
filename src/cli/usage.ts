/**
 * The usage text of `weft-mcp` and its exit codes.
 *
 * @module
 */

/** The exit codes of `weft-mcp`. */
export const ExitCode = {
  /** The command did its job. */
  ok: 0,
  /** `call`: the tool failed; its text (what the model sees) was printed. */
  toolError: 1,
  /** The server could not be reached, listed or called, or `--timeout` ran out. */
  failure: 2,
  /** The command line was wrong (sysexits' EX_USAGE). */
  usage: 64,
  /** Interrupted (SIGINT): the server was closed first. */
  interrupted: 130,
} as const;

/** `weft-mcp --help`: what it prints, on stdout for `help`, on stderr after a usage error. */
export const USAGE: string = `\
weft-mcp: see an MCP server's tools as a weft model sees them, or call one.

Usage:
  weft-mcp inspect [options] [<url> | -- <command> [args...]]
  weft-mcp call [options] <tool> ['<json>'] [<url> | -- <command> [args...]]
  weft-mcp inspect [options] --config <file>
  weft-mcp call [options] <server>.<tool> ['<json>'] --config <file>
  weft-mcp login [--kv <path>] [--port <n>] --config <file> <server>
  weft-mcp help

Targets:
  <url>                  a Streamable HTTP endpoint (http:// or https://)
  -- <command> [args...] a server process speaking stdio (spawned, then closed)
  --config <file>        every server of an mcpServers JSON file (as Claude
                         Desktop, Cursor and VS Code read it), connected at
                         once; tools named as the model sees them
                         (<server>_<tool>), failed servers named
  (none)                 the bundled example server, examples/server.ts

Commands:
  inspect   list the tools as imported by importTools: name, parallel or
            sequential and why, description, input schema, the schema
            keywords the core does not interpret, the output schema; then
            every tool that could not be imported, with the reason
  call      call one tool through the bridge with the JSON argument text
            (default {}) and print the text the model would see (capped at
            65536 bytes, as the agent loop caps it)
  login     authorize with an HTTP server of the --config file that needs
            OAuth: prints the URL to open, waits for the browser on
            http://127.0.0.1:<port>/callback (default 8976), stores the
            tokens (in Deno KV with --kv <path>; agents given
            oauthClient({ store: kv }) find them)

Options:
  --timeout <ms>     give up after <ms> milliseconds (default 30000)
  --config <file>    the mcpServers file to use as the target
  --kv <path>        with --config: the Deno KV file login stored OAuth
                     tokens in (servers saying "auth": "oauth" use them)
  --port <n>         the loopback port login listens on (default 8976);
                     give the same with --kv
  --env NAME=VALUE   set a variable for the server command (repeatable); the
                     server gets only HOME LOGNAME PATH SHELL TERM USER of
                     ours, plus these
  --env NAME         pass our NAME on to the server command (it must be set)
  -h, --help         print this text

Exit codes: 0 done, 1 the tool failed (its text is printed), 2 connection,
listing or call failure (with --config: any server failed), or timeout,
64 usage error, 130 interrupted.
`;
