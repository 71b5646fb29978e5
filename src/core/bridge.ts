/**
 * What the MCP bridge (`src/bridge`) builds on, beyond the public tool API:
 * assembling a `ToolDef` from a name, schemas and an invoke body (imported
 * tools) and reading its annotations, decoding argument text losslessly,
 * and adopting a schema document off the wire without copying it. The one door from another folder into the core's internals;
 * the architecture test refuses the others.
 *
 * @module
 */

export { annotationsOf, build } from "./_tool_build.ts";
export { notAnObject, parseArguments } from "./_decode.ts";
export { adoptSchema } from "./schema.ts";
