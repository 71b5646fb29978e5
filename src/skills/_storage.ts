/**
 * Where served skills' bytes come from: a folder (read with `Deno.readDir`
 * and `Deno.readFile`: needs read access) or a map of paths to contents
 * (for hosts without a filesystem, as Deno Deploy). Both list every file
 * as a `/`-separated path relative to the root, and read one by that path.
 *
 * @module
 */

import type { SkillFilesMap } from "./manifest.ts";

/** A source of skill files. */
export interface SkillStorage {
  /** Every file's path, and problems found (a symlink, a bad name). */
  list(): Promise<{ paths: string[]; problems: string[] }>;
  /** The bytes at `path`, now. */
  read(path: string): Promise<Uint8Array>;
}

const encoder = new TextEncoder();

/** A folder of skill folders. Names starting with `.` are skipped; symlinks are refused. */
export function folderStorage(root: string): SkillStorage {
  const base = root.endsWith("/") ? root.slice(0, -1) : root;
  return {
    async list() {
      const paths: string[] = [];
      const problems: string[] = [];
      const visit = async (dir: string): Promise<void> => {
        const at = dir === "" ? base : `${base}/${dir}`;
        for await (const entry of Deno.readDir(at)) {
          if (entry.name.startsWith(".")) continue;
          const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
          if (entry.isSymlink) {
            problems.push(
              `${path}: symlinks are not followed; copy the file into the skill`,
            );
          } else if (entry.isDirectory) await visit(path);
          else if (entry.isFile) paths.push(path);
        }
      };
      await visit("");
      return { paths, problems };
    },
    async read(path) {
      const at = `${base}/${path}`;
      const info = await Deno.lstat(at);
      if (!info.isFile) throw new Error(`${path} is no longer a regular file`);
      return await Deno.readFile(at);
    },
  };
}

/** A map of files; read live, so a changed entry is seen at the next read. */
export function mapStorage(files: SkillFilesMap): SkillStorage {
  return {
    list() {
      const paths: string[] = [];
      const problems: string[] = [];
      for (const key of Object.keys(files)) {
        const segments = key.split("/");
        if (segments.some((s) => s === "" || s === "." || s === "..")) {
          problems.push(
            `${
              JSON.stringify(key)
            }: a path must be relative, "/"-separated, without empty, "." or ".." segments`,
          );
        } else if (!segments.some((s) => s.startsWith("."))) {
          paths.push(key);
        }
      }
      return Promise.resolve({ paths, problems });
    },
    read(path) {
      const content = Object.hasOwn(files, path) ? files[path] : undefined;
      if (content === undefined) {
        return Promise.reject(new Error(`${path} is no longer in the map`));
      }
      return Promise.resolve(
        typeof content === "string" ? encoder.encode(content) : content,
      );
    },
  };
}
