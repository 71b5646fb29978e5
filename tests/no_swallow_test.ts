/**
 * Nothing swallowed: every `catch` under `src/` that does nothing says why
 * nothing is lost (a comment inside it), or it reports to the channel its
 * host already has (`onerror`, `onError`, a notice). Read from the source,
 * as tests/architecture_test.ts reads the imports.
 */

import assert from "node:assert/strict";
import { silentCatches, silentCatchesUnder } from "./_helpers/catches.ts";

const ROOT = new URL("../", import.meta.url);

/**
 * Files another branch is moving (the OAuth client, to `src/auth`), with the
 * number of silent catches each still holds: the move clears them. The list
 * only shrinks: a file here that holds fewer fails the test too.
 */
const PENDING = new Map<string, number>([]);

Deno.test("no catch under src/ swallows silently", async () => {
  const found = await silentCatchesUnder(new URL("src/", ROOT), ROOT);
  const counts = new Map<string, number>();
  for (const f of found) counts.set(f.file, (counts.get(f.file) ?? 0) + 1);
  const silent = found.filter((f) => !PENDING.has(f.file));
  assert.deepEqual(
    silent.map((f) => `${f.file}:${f.line}: ${f.text}`),
    [],
    "report to the host's onerror/notice, or say inside the catch: // Nothing lost: <why>",
  );
  for (const [file, count] of PENDING) {
    assert.equal(
      counts.get(file) ?? 0,
      count,
      `${file}: the pending list only shrinks; update it`,
    );
  }
});

Deno.test("the scanner finds every shape of a silent catch", () => {
  const src = [
    "try { a(); } catch {}",
    "try { a(); } catch (e) {",
    "  ",
    "}",
    "try { a(); } catch (_: unknown) { }",
    "p.catch(() => {});",
    "p.catch((_e) => {\n});",
    "p.catch(() => undefined);",
    "p.catch(\n  () => {},\n);",
    "p.catch(() => void 0);",
  ].join("\n");
  assert.deepEqual(
    silentCatches("x.ts", src).map((f) => f.line),
    [1, 2, 5, 6, 7, 9, 10, 13],
  );
});

Deno.test("a comment inside, or a handler that does something, passes", () => {
  const src = [
    "try { a(); } catch {",
    "  // Nothing lost: the stream is already closed.",
    "}",
    "try { a(); } catch { /* Nothing lost: best effort. */ }",
    "p.catch(() => {",
    "  // Nothing lost: the reader saw its end.",
    "});",
    "p.catch(() =>",
    "  // Nothing lost: a cache.",
    "  undefined",
    ");",
    "p.catch((e) => this.onerror?.(e));",
    "p.catch(report);",
    "try { a(); } catch { b(); }",
  ].join("\n");
  assert.deepEqual(silentCatches("x.ts", src), []);
});

Deno.test("a catch inside a string, template or regex is not code", () => {
  const src = [
    'const a = "p.catch(() => {})";',
    "const b = 'try {} catch {}';",
    "const c = `x ${y} catch {} ${`p.catch(() => {})`}`;",
    "const d = /catch \\{\\}/;",
    "const e = 4 / 2; p.catch(() => {});",
  ].join("\n");
  assert.deepEqual(silentCatches("x.ts", src).map((f) => f.line), [5]);
});
