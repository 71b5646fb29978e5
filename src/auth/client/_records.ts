/**
 * Where an OAuth client view keeps what it learns, in its store: the
 * discovery state per MCP server, the registration per issuer and client,
 * the tokens per issuer, client, principal and server, and pending
 * authorizations by `state` (taken once). The keys are `_grant.ts`'s; the
 * judgments are `_callback.ts`'s and `_tokens.ts`'s.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/client/auth"
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type { OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthStore } from "./oauth_store.ts";
import type { OAuthClientOptions } from "./options.ts";
import { clientKeyOf, tokensKeyOf } from "./_grant.ts";
import type { TokenRecord } from "./_tokens.ts";
import { livePending, PENDING_TTL, type PendingRecord } from "./_callback.ts";

/** What the records of one view (a server, a principal) are kept under. */
export interface RecordsScope {
  /** The MCP server; `undefined` for a client not bound to one yet. */
  readonly serverUrl: string | undefined;
  /** Who the tokens belong to. */
  readonly principal: string;
}

/** The store's records of one client view. */
export class ClientRecords {
  readonly #options: OAuthClientOptions;
  readonly #store: OAuthStore;
  readonly #scope: RecordsScope;

  /** The records of `scope`, in `store`, for the client `options` describe. */
  constructor(
    options: OAuthClientOptions,
    store: OAuthStore,
    scope: RecordsScope,
  ) {
    this.#options = options;
    this.#store = store;
    this.#scope = scope;
  }

  /** The MCP server; a `TypeError` when the view is bound to none. */
  server(): string {
    if (this.#scope.serverUrl === undefined) {
      throw new TypeError(
        "oauthClient: this client is not bound to a server; pass it as connectHttp's auth option",
      );
    }
    return this.#scope.serverUrl;
  }

  /** The discovery state kept for the server. */
  async discovery(): Promise<OAuthDiscoveryState | undefined> {
    const entry = await this.#store.get(["discovery", this.server()]);
    return entry?.value as OAuthDiscoveryState | undefined;
  }

  /** Keeps the discovery state for the server. */
  async saveDiscovery(state: OAuthDiscoveryState): Promise<void> {
    await this.#store.set(["discovery", this.server()], state);
  }

  /** The registration kept with the discovered issuer, if any. */
  async registration(): Promise<OAuthClientInformationMixed | undefined> {
    const key = await this.#clientKey();
    if (key === undefined) return undefined;
    const entry = await this.#store.get(key);
    return entry?.value as OAuthClientInformationMixed | undefined;
  }

  /** Keeps a registration, with `issuer` (default: the discovered one). */
  async saveRegistration(
    information: OAuthClientInformationMixed,
    issuer?: string,
  ): Promise<void> {
    const key = await this.#clientKey(issuer);
    if (key !== undefined) await this.#store.set(key, information);
  }

  /** The key of the view's tokens; `undefined` before discovery. */
  async tokensKey(): Promise<string[] | undefined> {
    const issuer = await this.#issuer();
    if (issuer === undefined) return undefined;
    const stored = await this.#store.get(clientKeyOf(this.#options, issuer));
    return tokensKeyOf(this.#options, {
      issuer,
      registered: stored?.value as OAuthClientInformationMixed | undefined,
      principal: this.#scope.principal,
      serverUrl: this.server(),
    });
  }

  /** The view's token record, if any. */
  async tokens(): Promise<TokenRecord | undefined> {
    const key = await this.tokensKey();
    if (key === undefined) return undefined;
    const value = (await this.#store.get(key))?.value as TokenRecord | null;
    return value ?? undefined;
  }

  /** Keeps the view's token record (not before discovery). */
  async saveTokens(record: TokenRecord): Promise<void> {
    const key = await this.tokensKey();
    if (key !== undefined) await this.#store.set(key, record);
  }

  /** Forgets the tokens, the registration or the discovery state. */
  async forget(what: "tokens" | "client" | "discovery"): Promise<void> {
    const key = what === "tokens"
      ? await this.tokensKey()
      : what === "client"
      ? await this.#clientKey()
      : ["discovery", this.server()];
    if (key !== undefined) await this.#store.delete(key);
  }

  /** Keeps a pending authorization under its `state`, for {@link PENDING_TTL}. */
  async savePending(state: string, record: PendingRecord): Promise<void> {
    await this.#store.set(["pending", state], record, {
      expireIn: PENDING_TTL,
    });
  }

  /**
   * Takes the pending authorization of `state` at `now`, once: `undefined`
   * when there is none alive, or another caller took it first.
   */
  async takePending(
    state: string,
    now: number,
  ): Promise<PendingRecord | undefined> {
    const entry = await this.#store.get(["pending", state]);
    const pending = livePending(entry?.value, now);
    if (entry === undefined || pending === undefined) return undefined;
    const taken = await this.#store.swap(
      ["pending", state],
      entry.version,
      null,
      {
        expireIn: 1,
      },
    );
    return taken ? pending : undefined;
  }

  async #issuer(): Promise<string | undefined> {
    return (await this.discovery())?.authorizationServerUrl;
  }

  /** The key of this client's registration with `issuer` (default: the discovered one). */
  async #clientKey(issuer?: string): Promise<string[] | undefined> {
    const at = issuer ?? await this.#issuer();
    return at === undefined ? undefined : clientKeyOf(this.#options, at);
  }
}
