/**
 * The resources, templates and prompts the conformance suite's server
 * scenarios read (`resources-*`, `prompts-*`, `completion-complete`), by
 * the URIs and names those scenarios ask for, exported through
 * `exportResources` and `exportPrompts`.
 *
 * @module
 */

import { z } from "zod";
import {
  exportPrompts,
  exportResources,
  image,
  prompt,
  resource,
  resourceTemplate,
  type Server,
} from "../../mod.ts";

/** A 1×1 PNG (the image of `test_prompt_with_image`). */
export const PNG_1X1: Uint8Array = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** `resources-read-text`. */
export const staticText = resource({
  uri: "test://static-text",
  name: "static-text",
  description: "A fixed text resource (conformance: resources-read-text).",
  mimeType: "text/plain",
  text: "This is the content of the static text resource.",
});

/** `resources-read-binary`: the PNG's bytes. */
export const staticBinary = resource({
  uri: "test://static-binary",
  name: "static-binary",
  description: "A fixed binary resource (conformance: resources-read-binary).",
  mimeType: "image/png",
  bytes: PNG_1X1,
});

/** `resources-subscribe`, `resources-unsubscribe`. */
export const watched = resource({
  uri: "test://watched-resource",
  name: "watched-resource",
  description:
    "A resource clients subscribe to (conformance: resources-subscribe).",
  mimeType: "text/plain",
  read: () => `watched at ${new Date().toISOString()}`,
});

/** `resources-templates-read`: the id substituted into the text. */
export const templateData = resourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "template-data",
  description: "Data by id (conformance: resources-templates-read).",
  mimeType: "application/json",
  read: ({ uri, variables }) =>
    JSON.stringify({ id: variables.id, templateTest: true, uri }),
  complete: {
    id: (value) => ["123", "456"].filter((id) => id.startsWith(value)),
  },
});

/** The prompts of the `prompts-*` scenarios and `completion-complete`. */
export const prompts = [
  prompt({
    name: "test_simple_prompt",
    description:
      "A prompt without arguments (conformance: prompts-get-simple).",
    get: () => "This is a simple prompt for testing.",
  }),
  prompt({
    name: "test_prompt_with_arguments",
    description:
      "A prompt with two arguments (conformance: prompts-get-with-args).",
    arguments: z.object({
      arg1: z.string().describe("First test argument"),
      arg2: z.string().describe("Second test argument"),
    }),
    complete: {
      arg1: (value) =>
        ["test", "testing", "other"].filter((v) => v.startsWith(value)),
    },
    get: ({ arg1, arg2 }) =>
      `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  }),
  prompt({
    name: "test_prompt_with_embedded_resource",
    description:
      "A prompt embedding a resource (conformance: prompts-get-embedded-resource).",
    arguments: z.object({
      resourceUri: z.string().describe("URI of the resource to embed"),
    }),
    get: ({ resourceUri }) => [
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: resourceUri,
            mimeType: "text/plain",
            text: "Embedded resource content for testing.",
          },
        },
      },
      { role: "user", content: "Please process the embedded resource above." },
    ],
  }),
  prompt({
    name: "test_prompt_with_image",
    description:
      "A prompt with an image (conformance: prompts-get-with-image).",
    get: () => [
      { role: "user", content: image(PNG_1X1, "image/png") },
      { role: "user", content: "Please analyze the image above." },
    ],
  }),
];

/** Exports the conformance resources, template and prompts on `server`. */
export function exportConformanceSurface(server: Server): void {
  exportResources(server, [staticText, staticBinary, watched, templateData]);
  exportPrompts(server, prompts);
}
