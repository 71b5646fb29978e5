/**
 * The MCP SDK's `Server`, `Client` and `InMemoryTransport`, offered under
 * `@weft/mcp` so every page spells one import. Each is a subclass of the
 * SDK class of the copy this module depends on, adding nothing but that
 * `Server` builds the SDK's default JSON Schema validator (Ajv) when it
 * first validates, not when it is made, and makes its handler maps'
 * entries when they are first read, not when it is made: an instance is an
 * instance of the SDK class, goes wherever the SDK's goes, and behaves
 * exactly as the SDK documents it.
 *
 * @module
 */

import { Server as SdkServer } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport as SdkInMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Implementation, ServerOptions } from "./sdk_types.ts";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CancelledNotificationSchema,
  InitializedNotificationSchema,
  InitializeRequestSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { deferHandlers } from "../core/deferred_handlers.ts";
import {
  handlerMapsCaught,
  interceptHandlerMaps,
} from "../seam/sdk_internals.ts";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv-provider"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";

type Validator = NonNullable<ServerOptions["jsonSchemaValidator"]>;
type JsonSchemaType = Parameters<Validator["getValidator"]>[0];

/**
 * The SDK's default JSON Schema validator (Ajv), built when it first
 * validates: building it costs more than the rest of a server, and a
 * server made per request for a `tools/call` never validates anything.
 */
class LazyAjv implements Validator {
  #ajv?: AjvJsonSchemaValidator;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (this.#ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(
      schema,
    );
  }
}

/**
 * The registrations the SDK's `Protocol` and `Server` constructors make,
 * deferred until the handler maps are first read: a server made per
 * request and answered without the SDK's `Protocol` never makes them.
 * None has a capability check that depends on when it runs (`ping` and
 * `initialize` have none, `logging/setLevel` is registered only with the
 * logging capability, capabilities only grow, and notification handlers
 * have none).
 */
const OWN_REGISTRATIONS: ReadonlySet<unknown> = new Set([
  CancelledNotificationSchema,
  ProgressNotificationSchema,
  PingRequestSchema,
  InitializeRequestSchema,
  InitializedNotificationSchema,
  SetLevelRequestSchema,
]);

const REQUEST = 0;
const NOTIFICATION = 1;
const INSTALL = 2;

// What the SDK's constructor hands the server being built, before any
// private field exists on it: its handler maps and, while registrations
// are being deferred, their queue (kind, schema or install, handler).
let building: unknown[] | undefined;
let buildingRequests: unknown;
let buildingNotifications: unknown;
/** Makes a server's queued registrations (set by `LazyServer`'s static block). */
let flushNow: (server: LazyServer) => void;

// The client lives in its own file so the HTTP client and the stdio client
// load the SDK's client without its server.
export { Client } from "./sdk_client.ts";

/**
 * The SDK's `Server` with its handler maps' entries made on first read. Its private fields stay off the type `Server` has (see
 * `SdkServerBase`): the SDK's `Server` and ours stay assignable both ways.
 */
class LazyServer extends SdkServer {
  // The SDK `Protocol`'s two handler maps (`_requestHandlers`,
  // `_notificationHandlers`), behind accessors on this prototype, and the
  // registrations not yet made in them: see `deferring` below.
  #requests: unknown;
  #notifications: unknown;
  #queue: unknown[] | undefined;

  constructor(info: Implementation, options?: ServerOptions) {
    // With a task store the SDK's constructor registers the tasks/*
    // handlers, whose capability check depends on when it runs: such a
    // server registers as the SDK's does. `new Array()`, not `[]`: an array literal's allocation site can be
    // pretenured once its arrays outlive a scavenge (each is held by its
    // server), and an old-space queue holding a young server's closures
    // keeps every server made since alive until a full collection.
    building = options?.taskStore === undefined ? new Array(0) : undefined;
    // (Left over only by a constructor that threw.)
    buildingRequests = buildingNotifications = undefined;
    super(info, options);
    this.#requests = buildingRequests;
    this.#notifications = buildingNotifications;
    this.#queue = building;
    const caught = handlerMapsCaught(buildingRequests, buildingNotifications);
    building = buildingRequests = buildingNotifications = undefined;
    // The SDK kept its maps elsewhere: its own registrations are made now.
    if (!caught) flushNow(this);
  }

  static {
    const proto = LazyServer.prototype;
    const sdkSetRequest = SdkServer.prototype.setRequestHandler;
    const sdkSetNotification = SdkServer.prototype.setNotificationHandler;

    /** Makes the queued registrations, in the order they were asked. */
    const flush = flushNow = (server: LazyServer): void => {
      const queue = server.#queue;
      if (queue === undefined) return;
      server.#queue = undefined;
      for (let i = 0; i < queue.length; i += 3) {
        const kind = queue[i];
        if (kind === REQUEST) {
          sdkSetRequest.call(
            server,
            queue[i + 1] as never,
            queue[i + 2] as never,
          );
        } else if (kind === NOTIFICATION) {
          sdkSetNotification.call(
            server,
            queue[i + 1] as never,
            queue[i + 2] as never,
          );
        } else (queue[i + 1] as () => void)();
      }
    };

    /**
     * A registration the SDK's constructor makes: queued while this
     * server is being built, when it is one of the SDK's own (no capability
     * check that depends on when it runs); any other one makes the queued
     * ones first, then itself, and ends the deferring for this server.
     */
    const deferring = (
      server: object,
      kind: number,
      schema: unknown,
      handler: unknown,
    ): boolean => {
      if (#requests in server || building === undefined) return false;
      if (OWN_REGISTRATIONS.has(schema)) {
        building.push(kind, schema, handler);
        return true;
      }
      const queue = building;
      building = undefined;
      for (let i = 0; i < queue.length; i += 3) {
        (queue[i] === REQUEST ? sdkSetRequest : sdkSetNotification).call(
          server,
          queue[i + 1] as never,
          queue[i + 2] as never,
        );
      }
      return false;
    };

    interceptHandlerMaps(proto, {
      get(this: object): unknown {
        const server = this as LazyServer;
        if (!(#requests in server)) return buildingRequests;
        if (server.#queue !== undefined) flush(server);
        return server.#requests;
      },
      set(this: object, map: unknown): void {
        const server = this as LazyServer;
        if (!(#requests in server)) buildingRequests = map;
        else {
          flush(server);
          server.#requests = map;
        }
      },
    }, {
      get(this: object): unknown {
        const server = this as LazyServer;
        if (!(#requests in server)) return buildingNotifications;
        if (server.#queue !== undefined) flush(server);
        return server.#notifications;
      },
      set(this: object, map: unknown): void {
        const server = this as LazyServer;
        if (!(#requests in server)) buildingNotifications = map;
        else {
          flush(server);
          server.#notifications = map;
        }
      },
    });
    Object.defineProperties(proto, {
      setRequestHandler: {
        value: function setRequestHandler(
          this: LazyServer,
          schema: unknown,
          handler: unknown,
        ): void {
          if (deferring(this, REQUEST, schema, handler)) return;
          return sdkSetRequest.call(this, schema as never, handler as never);
        },
        writable: true,
        configurable: true,
      },
      setNotificationHandler: {
        value: function setNotificationHandler(
          this: LazyServer,
          schema: unknown,
          handler: unknown,
        ): void {
          if (deferring(this, NOTIFICATION, schema, handler)) return;
          return sdkSetNotification.call(
            this,
            schema as never,
            handler as never,
          );
        },
        writable: true,
        configurable: true,
      },
      [deferHandlers]: {
        value: function (
          this: LazyServer,
          install?: () => void,
        ): boolean {
          const queue = this.#queue;
          if (queue === undefined || this.transport !== undefined) return false;
          if (install !== undefined) queue.push(INSTALL, install, undefined);
          return true;
        },
        configurable: true,
      },
    });
  }
}

// The SDK classes, documented by the SDK itself; marked internal so the
// documentation of this package stops at the subclasses below.
/** @internal */
const LazySdkServer: typeof SdkServer = LazyServer as never;
/** @internal */
class SdkServerBase extends LazySdkServer {}
/** @internal */
class SdkInMemoryTransportBase extends SdkInMemoryTransport {}

/**
 * The MCP SDK's low-level `Server` (`@modelcontextprotocol/sdk/server`):
 * `new Server(info, options?)`, `connect(transport)`, `close()`,
 * `setRequestHandler(schema, handler)` and the rest, as the SDK documents
 * them. Hand it to `exportTools`, `serveAgent`, `serveStdio` or
 * `httpHandler`, or to any SDK API that takes the SDK's `Server`.
 *
 * @example Serve a tool on a server and list it from a client
 * ```ts
 * import { Client, exportTools, InMemoryTransport, rawTool, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * exportTools(server, rawTool({
 *   name: "echo",
 *   description: "Echoes its arguments.",
 *   inputSchema: { type: "object" },
 *   run: (args) => args,
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo-client", version: "1.0.0" });
 * await client.connect(clientSide);
 * const { tools } = await client.listTools();
 * assert.deepEqual(tools.map((t) => t.name), ["echo"]);
 * await client.close();
 * ```
 */
export class Server extends SdkServerBase {
  /**
   * Builds a server from its `{ name, version }` and the SDK's server
   * options (`capabilities`, `instructions`, ...). Without a
   * `jsonSchemaValidator`, the SDK's Ajv one is built on first use (a
   * server made per request that never validates never builds it).
   */
  constructor(info: Implementation, options?: ServerOptions) {
    super(
      info,
      options?.jsonSchemaValidator === undefined
        ? { ...options, jsonSchemaValidator: new LazyAjv() }
        : options,
    );
  }
}

/**
 * The MCP SDK's in-memory transport (`@modelcontextprotocol/sdk/inMemory.js`):
 * `InMemoryTransport.createLinkedPair()` returns two linked ends, one for a
 * client and one for a server, in the same process. The ends are the SDK's
 * own `InMemoryTransport` instances.
 *
 * @example Link a client and a server in one process
 * ```ts
 * import { Client, InMemoryTransport, Server } from "@weft/mcp";
 * import assert from "node:assert/strict";
 *
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * const server = new Server({ name: "demo", version: "1.0.0" });
 * await server.connect(serverSide);
 * const client = new Client({ name: "demo-client", version: "1.0.0" });
 * await client.connect(clientSide);
 * assert.deepEqual(await client.ping(), {});
 * await client.close();
 * ```
 */
export class InMemoryTransport extends SdkInMemoryTransportBase {}
