/**
 * A fixture of the same size and shape as the 25-server corpus of real npm
 * servers: 25 servers, 458 tools, `tools/list` entries (name, description,
 * input schema with described properties, annotations) whose names and
 * wording follow the public servers they are named after (GitHub's ~90
 * tools, filesystem, memory, Slack, Postgres, Puppeteer, …). The real
 * listings are not in the repository (they need the network to fetch); the
 * fixture is generated, deterministic, and its definitions average about
 * the size real ones do.
 *
 * @module
 */

/** One `tools/list` entry. */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** One server of the corpus. */
export interface CorpusServer {
  /** The `mcpServers` key (its tools are prefixed `<name>_` once imported). */
  name: string;
  tools: ListedTool[];
}

type Param = [name: string, type: string, description: string];

interface Resource {
  noun: string;
  plural?: string;
  verbs: string;
  fields?: Param[];
  key?: Param;
}

interface ServerSpec {
  name: string;
  service: string;
  scope: string;
  scopeParams: Param[];
  resources: Resource[];
  extra: [
    name: string,
    description: string,
    params: Param[],
    readOnly?: boolean,
  ][];
}

const PAGE: Param[] = [
  ["page", "integer", "Page number for pagination (min 1)"],
  ["perPage", "integer", "Results per page for pagination (min 1, max 100)"],
];

function words(noun: string): string {
  return noun.replaceAll("_", " ");
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? "an" : "a";
}

function verbTool(
  spec: ServerSpec,
  r: Resource,
  verb: string,
): ListedTool {
  const plural = r.plural ?? `${r.noun}s`;
  const n = words(r.noun);
  const ps = words(plural);
  const key: Param = r.key ?? [`${r.noun}_id`, "string", `The ${n} ID`];
  const fields = r.fields ?? [["name", "string", `Name of the ${n}`]];
  const scope = spec.scope;
  let name: string;
  let description: string;
  let params: Param[];
  let readOnly = false;
  switch (verb) {
    case "l":
      name = `list_${plural}`;
      description =
        `List ${ps} in ${scope}. Returns ${ps} with their main fields; use filters to narrow the results and pagination for more.`;
      params = [...spec.scopeParams, ...PAGE, [
        "filter",
        "string",
        `Only ${ps} matching this text`,
      ]];
      readOnly = true;
      break;
    case "g":
      name = `get_${r.noun}`;
      description =
        `Get details of a specific ${n} in ${scope}, including its metadata and current state.`;
      params = [...spec.scopeParams, key];
      readOnly = true;
      break;
    case "c":
      name = `create_${r.noun}`;
      description = `Create a new ${n} in ${scope}.`;
      params = [...spec.scopeParams, ...fields];
      break;
    case "u":
      name = `update_${r.noun}`;
      description =
        `Update an existing ${n} in ${scope}. Only the fields given are changed.`;
      params = [...spec.scopeParams, key, ...fields];
      break;
    case "d":
      name = `delete_${r.noun}`;
      description = `Delete ${
        article(n)
      } ${n} from ${scope}. This cannot be undone.`;
      params = [...spec.scopeParams, key];
      break;
    case "s":
      name = `search_${plural}`;
      description =
        `Search for ${ps} across ${spec.service} using ${spec.service}'s search syntax. Returns the best matches first.`;
      params = [
        ["query", "string", `Search query for ${ps}`],
        ...PAGE,
      ];
      readOnly = true;
      break;
    default:
      throw new Error(`unknown verb ${verb}`);
  }
  return listed(name, description, params, readOnly);
}

function listed(
  name: string,
  description: string,
  params: Param[],
  readOnly = false,
): ListedTool {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [p, type, text] of params) {
    properties[p] = type === "string[]"
      ? { type: "array", items: { type: "string" }, description: text }
      : { type, description: text };
    if (p !== "page" && p !== "perPage" && p !== "filter") required.push(p);
  }
  return {
    name,
    description,
    inputSchema: {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    },
    annotations: readOnly ? { readOnlyHint: true } : { readOnlyHint: false },
  };
}

const OWNER_REPO: Param[] = [
  ["owner", "string", "Repository owner (user or organization)"],
  ["repo", "string", "Repository name"],
];

const SPECS: ServerSpec[] = [
  {
    name: "github",
    service: "GitHub",
    scope: "a GitHub repository",
    scopeParams: OWNER_REPO,
    resources: [
      {
        noun: "issue",
        verbs: "lgcus",
        key: ["issue_number", "number", "The issue number"],
        fields: [["title", "string", "Issue title"], [
          "body",
          "string",
          "Issue body content (Markdown)",
        ], ["labels", "string[]", "Labels to apply"]],
      },
      {
        noun: "pull_request",
        verbs: "lgcus",
        key: ["pullNumber", "number", "The pull request number"],
        fields: [
          ["title", "string", "PR title"],
          [
            "head",
            "string",
            "The branch containing the changes",
          ],
          ["base", "string", "The branch to merge into"],
          [
            "body",
            "string",
            "PR description",
          ],
        ],
      },
      { noun: "branch", plural: "branches", verbs: "lgcd" },
      { noun: "commit", verbs: "lg", key: ["sha", "string", "Commit SHA"] },
      { noun: "release", verbs: "lgcud" },
      { noun: "tag", verbs: "lgc" },
      {
        noun: "label",
        verbs: "lgcud",
        fields: [["name", "string", "Label name"], [
          "color",
          "string",
          "Hex colour without #",
        ]],
      },
      { noun: "milestone", verbs: "lgcud" },
      {
        noun: "workflow_run",
        verbs: "lg",
        key: ["run_id", "number", "The workflow run ID"],
      },
      { noun: "workflow", verbs: "lg" },
      { noun: "gist", verbs: "lgcud" },
      {
        noun: "code_scanning_alert",
        verbs: "lg",
        key: ["alertNumber", "number", "The alert number"],
      },
      {
        noun: "secret_scanning_alert",
        verbs: "lg",
        key: ["alertNumber", "number", "The alert number"],
      },
      {
        noun: "dependabot_alert",
        verbs: "lg",
        key: ["alertNumber", "number", "The alert number"],
      },
      { noun: "discussion", verbs: "lgc" },
      { noun: "notification", verbs: "lg" },
      { noun: "repository", plural: "repositories", verbs: "sgcd" },
      { noun: "collaborator", verbs: "l" },
      { noun: "webhook", verbs: "lgcd" },
      { noun: "deployment", verbs: "lgc" },
      { noun: "environment", verbs: "lg" },
      { noun: "project", verbs: "lg" },
      { noun: "team", verbs: "lg" },
    ],
    extra: [
      [
        "search_code",
        "Search for code across GitHub repositories with the code search syntax (e.g. 'repo:owner/name lang:ts').",
        [["query", "string", "Code search query"], ...PAGE],
        true,
      ],
      ["search_users", "Search for GitHub users by name, login or email.", [[
        "query",
        "string",
        "User search query",
      ], ...PAGE], true],
      [
        "get_file_contents",
        "Get the contents of a file or directory from a GitHub repository at a branch, tag or commit.",
        [...OWNER_REPO, ["path", "string", "Path to the file or directory"], [
          "ref",
          "string",
          "Branch, tag or commit SHA",
        ]],
        true,
      ],
      [
        "create_or_update_file",
        "Create or update a single file in a GitHub repository with a commit.",
        [
          ...OWNER_REPO,
          ["path", "string", "Path of the file"],
          ["content", "string", "New file content"],
          ["message", "string", "Commit message"],
          ["branch", "string", "Branch to commit to"],
        ],
      ],
      [
        "push_files",
        "Push several files to a GitHub repository in one commit.",
        [...OWNER_REPO, ["branch", "string", "Branch to push to"], [
          "files",
          "string[]",
          "Paths and contents of the files",
        ], ["message", "string", "Commit message"]],
      ],
      ["delete_file", "Delete a file from a GitHub repository with a commit.", [
        ...OWNER_REPO,
        ["path", "string", "Path of the file"],
        ["message", "string", "Commit message"],
      ]],
      [
        "fork_repository",
        "Fork a GitHub repository to your account or an organization.",
        [...OWNER_REPO, ["organization", "string", "Organization to fork to"]],
      ],
      [
        "merge_pull_request",
        "Merge a pull request in a GitHub repository (merge, squash or rebase).",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"], [
          "merge_method",
          "string",
          "merge, squash or rebase",
        ]],
      ],
      ["get_pull_request_diff", "Get the diff of a pull request.", [
        ...OWNER_REPO,
        ["pullNumber", "number", "The pull request number"],
      ], true],
      [
        "get_pull_request_files",
        "Get the list of files changed in a pull request.",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"]],
        true,
      ],
      [
        "get_pull_request_status",
        "Get the combined status of all status checks for a pull request.",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"]],
        true,
      ],
      [
        "update_pull_request_branch",
        "Update a pull request branch with the latest changes from the base branch.",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"]],
      ],
      [
        "create_pull_request_review",
        "Create a review on a pull request: approve, request changes or comment.",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"], [
          "event",
          "string",
          "APPROVE, REQUEST_CHANGES or COMMENT",
        ], ["body", "string", "Review text"]],
      ],
      ["get_pull_request_reviews", "Get the reviews on a pull request.", [
        ...OWNER_REPO,
        ["pullNumber", "number", "The pull request number"],
      ], true],
      [
        "request_copilot_review",
        "Request a GitHub Copilot code review for a pull request.",
        [...OWNER_REPO, ["pullNumber", "number", "The pull request number"]],
      ],
      [
        "add_issue_comment",
        "Add a comment to an existing issue or pull request.",
        [...OWNER_REPO, ["issue_number", "number", "The issue number"], [
          "body",
          "string",
          "Comment text",
        ]],
      ],
      ["get_issue_comments", "Get the comments of an issue.", [...OWNER_REPO, [
        "issue_number",
        "number",
        "The issue number",
      ]], true],
      [
        "assign_copilot_to_issue",
        "Assign GitHub Copilot to work on an issue.",
        [...OWNER_REPO, ["issue_number", "number", "The issue number"]],
      ],
      [
        "run_workflow",
        "Run a GitHub Actions workflow by its file name or ID.",
        [...OWNER_REPO, ["workflow_id", "string", "Workflow file name or ID"], [
          "ref",
          "string",
          "Git ref to run on",
        ]],
      ],
      ["rerun_workflow_run", "Re-run a whole workflow run.", [...OWNER_REPO, [
        "run_id",
        "number",
        "The workflow run ID",
      ]]],
      ["cancel_workflow_run", "Cancel a workflow run that is in progress.", [
        ...OWNER_REPO,
        ["run_id", "number", "The workflow run ID"],
      ]],
      [
        "get_job_logs",
        "Download the logs of a workflow job, or of every failed job of a run.",
        [...OWNER_REPO, ["job_id", "number", "The job ID"], [
          "failed_only",
          "boolean",
          "Only the failed jobs",
        ]],
        true,
      ],
      ["get_me", "Get details of the authenticated GitHub user.", [], true],
      ["star_repository", "Star a GitHub repository.", OWNER_REPO],
      [
        "list_starred_repositories",
        "List the repositories the user has starred.",
        PAGE,
        true,
      ],
      ["mark_all_notifications_read", "Mark all notifications as read.", []],
      [
        "dismiss_notification",
        "Dismiss a notification (mark it read or done).",
        [["threadID", "string", "The notification thread ID"]],
      ],
    ],
  },
  {
    name: "gitlab",
    service: "GitLab",
    scope: "a GitLab project",
    scopeParams: [["project_id", "string", "Project ID or URL-encoded path"]],
    resources: [
      {
        noun: "merge_request",
        verbs: "lgcu",
        key: ["merge_request_iid", "number", "The merge request IID"],
      },
      {
        noun: "issue",
        verbs: "lgcud",
        key: ["issue_iid", "number", "The issue IID"],
      },
      {
        noun: "pipeline",
        verbs: "lgc",
        key: ["pipeline_id", "number", "The pipeline ID"],
      },
      { noun: "branch", plural: "branches", verbs: "lgc" },
      { noun: "wiki_page", verbs: "lgcud" },
      { noun: "milestone", verbs: "lgc" },
      { noun: "project", verbs: "sg" },
      { noun: "release", verbs: "lgc" },
    ],
    extra: [
      ["merge_merge_request", "Merge a merge request in a GitLab project.", [[
        "project_id",
        "string",
        "Project ID or URL-encoded path",
      ], ["merge_request_iid", "number", "The merge request IID"]]],
      [
        "get_merge_request_diffs",
        "Get the changes (diffs) of a merge request.",
        [["project_id", "string", "Project ID or URL-encoded path"], [
          "merge_request_iid",
          "number",
          "The merge request IID",
        ]],
        true,
      ],
      ["create_note", "Create a comment (note) on an issue or merge request.", [
        ["project_id", "string", "Project ID or URL-encoded path"],
        ["noteable_iid", "number", "Issue or MR IID"],
        ["body", "string", "Note text"],
      ]],
      ["get_file_contents", "Get the contents of a file in a GitLab project.", [
        ["project_id", "string", "Project ID or URL-encoded path"],
        ["file_path", "string", "Path of the file"],
        ["ref", "string", "Branch or tag"],
      ], true],
      ["push_files", "Push several files to a GitLab project in one commit.", [
        ["project_id", "string", "Project ID or URL-encoded path"],
        ["branch", "string", "Branch"],
        ["files", "string[]", "Files"],
        ["commit_message", "string", "Commit message"],
      ]],
      ["retry_pipeline", "Retry the failed jobs of a pipeline.", [[
        "project_id",
        "string",
        "Project ID or URL-encoded path",
      ], ["pipeline_id", "number", "The pipeline ID"]]],
      ["get_pipeline_job_output", "Get the log output of a pipeline job.", [[
        "project_id",
        "string",
        "Project ID or URL-encoded path",
      ], ["job_id", "number", "The job ID"]], true],
    ],
  },
  {
    name: "filesystem",
    service: "the file system",
    scope: "the allowed directories",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "read_file",
        "Read the complete contents of a file from the file system. Handles various text encodings. Only works within allowed directories.",
        [["path", "string", "Path of the file"]],
        true,
      ],
      [
        "read_text_file",
        "Read a text file, optionally only its first or last lines (head, tail).",
        [["path", "string", "Path of the file"], [
          "head",
          "number",
          "First N lines",
        ], ["tail", "number", "Last N lines"]],
        true,
      ],
      [
        "read_media_file",
        "Read an image or audio file; returns base64 data and the MIME type.",
        [["path", "string", "Path of the file"]],
        true,
      ],
      [
        "read_multiple_files",
        "Read the contents of several files at once; a failed read does not stop the others.",
        [["paths", "string[]", "Paths of the files"]],
        true,
      ],
      [
        "write_file",
        "Create a new file or completely overwrite an existing file with new content. Use with caution.",
        [["path", "string", "Path of the file"], [
          "content",
          "string",
          "The content",
        ]],
      ],
      [
        "edit_file",
        "Make line-based edits to a text file; each edit replaces exact text. Returns a git-style diff.",
        [["path", "string", "Path of the file"], [
          "edits",
          "string[]",
          "oldText/newText pairs",
        ], ["dryRun", "boolean", "Preview only"]],
      ],
      [
        "create_directory",
        "Create a new directory, or make sure it exists, with its parents.",
        [["path", "string", "Path of the directory"]],
      ],
      [
        "list_directory",
        "Get a detailed listing of all files and directories in a path, marked [FILE] or [DIR].",
        [["path", "string", "Path of the directory"]],
        true,
      ],
      [
        "list_directory_with_sizes",
        "List files and directories in a path with their sizes, sorted by name or size.",
        [["path", "string", "Path of the directory"], [
          "sortBy",
          "string",
          "name or size",
        ]],
        true,
      ],
      [
        "directory_tree",
        "Get a recursive tree view of files and directories as JSON.",
        [["path", "string", "Path of the directory"]],
        true,
      ],
      [
        "move_file",
        "Move or rename files and directories. Fails if the destination exists.",
        [["source", "string", "Source path"], [
          "destination",
          "string",
          "Destination path",
        ]],
      ],
      [
        "search_files",
        "Recursively search for files and directories whose names match a glob pattern.",
        [["path", "string", "Where to start"], [
          "pattern",
          "string",
          "Glob pattern",
        ], ["excludePatterns", "string[]", "Patterns to exclude"]],
        true,
      ],
      [
        "get_file_info",
        "Retrieve metadata about a file or directory: size, creation time, last modified time, permissions, type.",
        [["path", "string", "Path"]],
        true,
      ],
      [
        "list_allowed_directories",
        "List the directories this server is allowed to access.",
        [],
        true,
      ],
    ],
  },
  {
    name: "memory",
    service: "the knowledge graph",
    scope: "the knowledge graph",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "create_entities",
        "Create multiple new entities in the knowledge graph, each with a name, a type and observations.",
        [["entities", "string[]", "Entities to create"]],
      ],
      [
        "create_relations",
        "Create multiple new relations between entities in the knowledge graph, in active voice.",
        [["relations", "string[]", "Relations (from, to, relationType)"]],
      ],
      [
        "add_observations",
        "Add new observations (facts) to existing entities in the knowledge graph.",
        [[
          "observations",
          "string[]",
          "Entity names and their new observations",
        ]],
      ],
      [
        "delete_entities",
        "Delete multiple entities and their relations from the knowledge graph.",
        [["entityNames", "string[]", "Names of the entities"]],
      ],
      [
        "delete_observations",
        "Delete specific observations from entities in the knowledge graph.",
        [["deletions", "string[]", "Entity names and observations to delete"]],
      ],
      [
        "delete_relations",
        "Delete multiple relations from the knowledge graph.",
        [["relations", "string[]", "Relations to delete"]],
      ],
      ["read_graph", "Read the entire knowledge graph.", [], true],
      [
        "search_nodes",
        "Search for nodes in the knowledge graph by a query matched against names, types and observations.",
        [["query", "string", "The search query"]],
        true,
      ],
      [
        "open_nodes",
        "Open specific nodes in the knowledge graph by their names.",
        [["names", "string[]", "Entity names"]],
        true,
      ],
    ],
  },
  {
    name: "everything",
    service: "the test server",
    scope: "the test server",
    scopeParams: [],
    resources: [],
    extra: [
      ["echo", "Echoes back the input.", [[
        "message",
        "string",
        "Message to echo",
      ]], true],
      ["add", "Adds two numbers.", [["a", "number", "First number"], [
        "b",
        "number",
        "Second number",
      ]], true],
      [
        "longRunningOperation",
        "Demonstrates a long running operation with progress updates.",
        [["duration", "number", "Duration in seconds"], [
          "steps",
          "number",
          "Number of steps",
        ]],
        true,
      ],
      [
        "printEnv",
        "Prints all environment variables, helpful for debugging MCP server configuration.",
        [],
        true,
      ],
      ["sampleLLM", "Samples from an LLM using MCP's sampling feature.", [[
        "prompt",
        "string",
        "The prompt",
      ], ["maxTokens", "number", "Max tokens"]], true],
      ["getTinyImage", "Returns the MCP_TINY_IMAGE.", [], true],
      [
        "annotatedMessage",
        "Demonstrates how annotations can be used to provide metadata about content.",
        [["messageType", "string", "error, success or debug"], [
          "includeImage",
          "boolean",
          "Include an image",
        ]],
        true,
      ],
      [
        "getResourceReference",
        "Returns a resource reference that can be used by MCP clients.",
        [["resourceId", "number", "ID of the resource"]],
        true,
      ],
      [
        "getResourceLinks",
        "Returns multiple resource links that reference different types of resources.",
        [["count", "number", "How many links"]],
        true,
      ],
      [
        "structuredContent",
        "Returns structured content along with an output schema for client data validation.",
        [["location", "string", "City name or zip code"]],
        true,
      ],
      [
        "startElicitation",
        "Elicitation test tool that demonstrates how to request user input with various field types.",
        [],
        true,
      ],
    ],
  },
  {
    name: "slack",
    service: "Slack",
    scope: "the Slack workspace",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "list_channels",
        "List public or pre-defined channels in the workspace with pagination.",
        [["limit", "number", "Maximum channels to return"], [
          "cursor",
          "string",
          "Pagination cursor",
        ]],
        true,
      ],
      ["post_message", "Post a new message to a Slack channel.", [[
        "channel_id",
        "string",
        "The ID of the channel to post to",
      ], ["text", "string", "The message text to post"]]],
      ["reply_to_thread", "Reply to a specific message thread in Slack.", [
        ["channel_id", "string", "The channel containing the thread"],
        ["thread_ts", "string", "Timestamp of the parent message"],
        ["text", "string", "The reply text"],
      ]],
      ["add_reaction", "Add a reaction emoji to a message.", [
        ["channel_id", "string", "The channel"],
        ["timestamp", "string", "Message timestamp"],
        ["reaction", "string", "Emoji name without colons"],
      ]],
      ["get_channel_history", "Get recent messages from a channel.", [[
        "channel_id",
        "string",
        "The channel",
      ], ["limit", "number", "Number of messages"]], true],
      ["get_thread_replies", "Get all replies in a message thread.", [[
        "channel_id",
        "string",
        "The channel",
      ], ["thread_ts", "string", "Timestamp of the parent message"]], true],
      [
        "get_users",
        "Get a list of all users in the workspace with their basic profile information.",
        [["cursor", "string", "Pagination cursor"], [
          "limit",
          "number",
          "Maximum users",
        ]],
        true,
      ],
      [
        "get_user_profile",
        "Get detailed profile information for a specific user.",
        [["user_id", "string", "The user's ID"]],
        true,
      ],
      ["search_messages", "Search messages across the Slack workspace.", [[
        "query",
        "string",
        "Search query",
      ]], true],
      ["create_channel", "Create a new Slack channel.", [[
        "name",
        "string",
        "Channel name",
      ], ["is_private", "boolean", "Private channel"]]],
      ["invite_to_channel", "Invite users to a Slack channel.", [[
        "channel_id",
        "string",
        "The channel",
      ], ["users", "string[]", "User IDs"]]],
      ["set_channel_topic", "Set the topic of a Slack channel.", [[
        "channel_id",
        "string",
        "The channel",
      ], ["topic", "string", "New topic"]]],
    ],
  },
  {
    name: "postgres",
    service: "PostgreSQL",
    scope: "the PostgreSQL database",
    scopeParams: [],
    resources: [],
    extra: [
      ["query", "Run a read-only SQL query against the PostgreSQL database.", [[
        "sql",
        "string",
        "The SQL query",
      ]], true],
      [
        "execute",
        "Execute a SQL statement that changes data (INSERT, UPDATE, DELETE) in PostgreSQL.",
        [["sql", "string", "The SQL statement"]],
      ],
      [
        "list_schemas",
        "List the schemas of the PostgreSQL database.",
        [],
        true,
      ],
      ["list_tables", "List the tables of a schema with their row estimates.", [
        ["schema", "string", "Schema name"],
      ], true],
      [
        "describe_table",
        "Describe a table: its columns, types, constraints and indexes.",
        [["schema", "string", "Schema name"], [
          "table",
          "string",
          "Table name",
        ]],
        true,
      ],
      [
        "explain_query",
        "Show the execution plan of a SQL query (EXPLAIN ANALYZE).",
        [["sql", "string", "The SQL query"]],
        true,
      ],
      [
        "get_top_queries",
        "Report the slowest queries from pg_stat_statements.",
        [["limit", "number", "How many"]],
        true,
      ],
      [
        "analyze_db_health",
        "Check database health: index bloat, vacuum, connections, replication.",
        [],
        true,
      ],
    ],
  },
  {
    name: "sqlite",
    service: "SQLite",
    scope: "the SQLite database",
    scopeParams: [],
    resources: [],
    extra: [
      ["read_query", "Execute a SELECT query on the SQLite database.", [[
        "query",
        "string",
        "SELECT SQL query",
      ]], true],
      [
        "write_query",
        "Execute an INSERT, UPDATE or DELETE query on the SQLite database.",
        [["query", "string", "SQL query"]],
      ],
      ["create_table", "Create a new table in the SQLite database.", [[
        "query",
        "string",
        "CREATE TABLE SQL statement",
      ]]],
      ["list_tables", "List all tables in the SQLite database.", [], true],
      ["describe_table", "Get the schema information for a specific table.", [[
        "table_name",
        "string",
        "Name of the table",
      ]], true],
      ["append_insight", "Add a business insight to the memo.", [[
        "insight",
        "string",
        "Business insight discovered from data analysis",
      ]]],
      ["export_csv", "Export the result of a query as CSV text.", [[
        "query",
        "string",
        "SELECT SQL query",
      ]], true],
      ["vacuum", "Rebuild the database file, reclaiming unused space.", []],
    ],
  },
  {
    name: "puppeteer",
    service: "the browser",
    scope: "the browser",
    scopeParams: [],
    resources: [],
    extra: [
      ["puppeteer_navigate", "Navigate the browser to a URL.", [[
        "url",
        "string",
        "URL to navigate to",
      ]]],
      [
        "puppeteer_screenshot",
        "Take a screenshot of the current page or a specific element.",
        [
          ["name", "string", "Name for the screenshot"],
          ["selector", "string", "CSS selector for the element"],
          ["width", "number", "Width in pixels"],
          ["height", "number", "Height in pixels"],
        ],
        true,
      ],
      ["puppeteer_click", "Click an element on the page.", [[
        "selector",
        "string",
        "CSS selector for the element to click",
      ]]],
      ["puppeteer_fill", "Fill out an input field.", [[
        "selector",
        "string",
        "CSS selector for the input field",
      ], ["value", "string", "Value to fill"]]],
      ["puppeteer_select", "Select an element on the page with a Select tag.", [
        ["selector", "string", "CSS selector for the element to select"],
        ["value", "string", "Value to select"],
      ]],
      ["puppeteer_hover", "Hover over an element on the page.", [[
        "selector",
        "string",
        "CSS selector for the element to hover",
      ]]],
      ["puppeteer_evaluate", "Execute JavaScript in the browser console.", [[
        "script",
        "string",
        "JavaScript code to execute",
      ]]],
      [
        "puppeteer_go_back",
        "Go back to the previous page in the browser history.",
        [],
      ],
      ["puppeteer_pdf", "Save the current page as a PDF.", [[
        "path",
        "string",
        "Where to save",
      ]]],
      ["puppeteer_cookies", "Get the cookies of the current page.", [], true],
    ],
  },
  {
    name: "playwright",
    service: "the browser",
    scope: "the browser",
    scopeParams: [],
    resources: [],
    extra: [
      ["browser_navigate", "Navigate to a URL.", [[
        "url",
        "string",
        "The URL to navigate to",
      ]]],
      ["browser_navigate_back", "Go back to the previous page.", []],
      [
        "browser_snapshot",
        "Capture an accessibility snapshot of the current page; better than a screenshot for acting on it.",
        [],
        true,
      ],
      [
        "browser_take_screenshot",
        "Take a screenshot of the current page. You cannot perform actions based on the screenshot; use browser_snapshot for actions.",
        [["type", "string", "png or jpeg"], [
          "filename",
          "string",
          "File name to save to",
        ], ["fullPage", "boolean", "Whole scrollable page"]],
        true,
      ],
      ["browser_click", "Perform a click on a web page.", [[
        "element",
        "string",
        "Human-readable element description",
      ], [
        "ref",
        "string",
        "Exact target element reference from the page snapshot",
      ]]],
      ["browser_type", "Type text into an editable element.", [
        ["element", "string", "Element description"],
        ["ref", "string", "Element reference"],
        ["text", "string", "Text to type"],
        ["submit", "boolean", "Press Enter after"],
      ]],
      ["browser_fill_form", "Fill multiple form fields at once.", [[
        "fields",
        "string[]",
        "Fields to fill",
      ]]],
      ["browser_hover", "Hover over an element on the page.", [[
        "element",
        "string",
        "Element description",
      ], ["ref", "string", "Element reference"]]],
      ["browser_drag", "Perform drag and drop between two elements.", [[
        "startRef",
        "string",
        "Source element",
      ], ["endRef", "string", "Target element"]]],
      ["browser_select_option", "Select an option in a dropdown.", [[
        "ref",
        "string",
        "Element reference",
      ], ["values", "string[]", "Values to select"]]],
      ["browser_press_key", "Press a key on the keyboard.", [[
        "key",
        "string",
        "Name of the key, e.g. ArrowLeft",
      ]]],
      ["browser_file_upload", "Upload one or multiple files.", [[
        "paths",
        "string[]",
        "Absolute paths of the files",
      ]]],
      ["browser_handle_dialog", "Handle a dialog (alert, confirm, prompt).", [[
        "accept",
        "boolean",
        "Accept the dialog",
      ], ["promptText", "string", "Prompt text"]]],
      [
        "browser_evaluate",
        "Evaluate a JavaScript expression on the page or an element.",
        [["function", "string", "() => { /* code */ }"]],
      ],
      [
        "browser_console_messages",
        "Return all console messages of the page.",
        [],
        true,
      ],
      [
        "browser_network_requests",
        "Return all network requests since loading the page.",
        [],
        true,
      ],
      ["browser_resize", "Resize the browser window.", [[
        "width",
        "number",
        "Width",
      ], ["height", "number", "Height"]]],
      ["browser_close", "Close the page.", []],
      ["browser_tabs", "List, create, close or select a browser tab.", [[
        "action",
        "string",
        "list, new, close or select",
      ], ["index", "number", "Tab index"]]],
      [
        "browser_wait_for",
        "Wait for text to appear or disappear or a time to pass.",
        [["text", "string", "Text to wait for"], ["time", "number", "Seconds"]],
      ],
      ["browser_install", "Install the browser specified in the config.", []],
      ["browser_pdf_save", "Save the page as a PDF.", [[
        "filename",
        "string",
        "File name",
      ]]],
      [
        "browser_mouse_click_xy",
        "Click the left mouse button at a given position.",
        [["x", "number", "X"], ["y", "number", "Y"]],
      ],
      [
        "browser_generate_locator",
        "Generate a Playwright locator for the given element, for use in tests.",
        [["ref", "string", "Element reference"]],
        true,
      ],
      [
        "browser_verify_text_visible",
        "Verify that text is visible on the page.",
        [["text", "string", "Text"]],
        true,
      ],
    ],
  },
  {
    name: "brave-search",
    service: "Brave Search",
    scope: "the web",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "brave_web_search",
        "Performs a web search using the Brave Search API, ideal for general queries, news, articles and online content. Supports pagination and freshness controls.",
        [["query", "string", "Search query (max 400 chars, 50 words)"], [
          "count",
          "number",
          "Number of results (1-20)",
        ], ["offset", "number", "Pagination offset"]],
        true,
      ],
      [
        "brave_local_search",
        "Searches for local businesses and places using Brave's Local Search API: restaurants, services, addresses with ratings and opening hours.",
        [[
          "query",
          "string",
          "Local search query (e.g. 'pizza near Central Park')",
        ], ["count", "number", "Number of results"]],
        true,
      ],
    ],
  },
  {
    name: "fetch",
    service: "the web",
    scope: "the web",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "fetch",
        "Fetches a URL from the internet and optionally extracts its contents as markdown.",
        [
          ["url", "string", "URL to fetch"],
          ["max_length", "integer", "Maximum number of characters to return"],
          ["start_index", "integer", "Start at this character index"],
          [
            "raw",
            "boolean",
            "Get the actual HTML content without simplification",
          ],
        ],
        true,
      ],
    ],
  },
  {
    name: "google-maps",
    service: "Google Maps",
    scope: "Google Maps",
    scopeParams: [],
    resources: [],
    extra: [
      ["maps_geocode", "Convert an address into geographic coordinates.", [[
        "address",
        "string",
        "The address to geocode",
      ]], true],
      ["maps_reverse_geocode", "Convert coordinates into an address.", [[
        "latitude",
        "number",
        "Latitude",
      ], ["longitude", "number", "Longitude"]], true],
      ["maps_search_places", "Search for places using Google Places API.", [[
        "query",
        "string",
        "Search query",
      ], ["radius", "number", "Search radius in meters"]], true],
      [
        "maps_place_details",
        "Get detailed information about a specific place.",
        [["place_id", "string", "The place ID"]],
        true,
      ],
      [
        "maps_distance_matrix",
        "Calculate travel distance and time for multiple origins and destinations.",
        [["origins", "string[]", "Origin addresses"], [
          "destinations",
          "string[]",
          "Destination addresses",
        ], ["mode", "string", "driving, walking, bicycling or transit"]],
        true,
      ],
      ["maps_elevation", "Get elevation data for locations on the earth.", [[
        "locations",
        "string[]",
        "Locations",
      ]], true],
      ["maps_directions", "Get directions between two points.", [
        ["origin", "string", "Starting point address or coordinates"],
        ["destination", "string", "Ending point address or coordinates"],
        ["mode", "string", "driving, walking, bicycling or transit"],
      ], true],
    ],
  },
  {
    name: "git",
    service: "git",
    scope: "a git repository",
    scopeParams: [],
    resources: [],
    extra: [
      ["git_status", "Shows the working tree status.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ]], true],
      [
        "git_diff_unstaged",
        "Shows changes in the working directory that are not yet staged.",
        [["repo_path", "string", "Path to the repository"], [
          "context_lines",
          "integer",
          "Context lines",
        ]],
        true,
      ],
      ["git_diff_staged", "Shows changes that are staged for commit.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["context_lines", "integer", "Context lines"]], true],
      ["git_diff", "Shows differences between branches or commits.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["target", "string", "Branch or commit"]], true],
      ["git_commit", "Records changes to the repository.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["message", "string", "Commit message"]]],
      ["git_add", "Adds file contents to the staging area.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["files", "string[]", "Files to stage"]]],
      ["git_reset", "Unstages all staged changes.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ]]],
      ["git_log", "Shows the commit logs.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["max_count", "integer", "Maximum number of commits"]], true],
      [
        "git_create_branch",
        "Creates a new branch from an optional base branch.",
        [["repo_path", "string", "Path to the repository"], [
          "branch_name",
          "string",
          "Name of the new branch",
        ], ["base_branch", "string", "Base branch"]],
      ],
      ["git_checkout", "Switches branches.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["branch_name", "string", "Branch to check out"]]],
      ["git_show", "Shows the contents of a commit.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["revision", "string", "The revision"]], true],
      ["git_branch", "List Git branches.", [[
        "repo_path",
        "string",
        "Path to the repository",
      ], ["branch_type", "string", "local, remote or all"]], true],
    ],
  },
  {
    name: "sentry",
    service: "Sentry",
    scope: "a Sentry organization",
    scopeParams: [["organizationSlug", "string", "The organization's slug"]],
    resources: [
      {
        noun: "issue",
        verbs: "lgu",
        key: ["issueId", "string", "The issue ID, e.g. PROJECT-123"],
      },
      { noun: "project", verbs: "lgc" },
      { noun: "team", verbs: "lc" },
      { noun: "release", verbs: "lg" },
      { noun: "alert_rule", verbs: "lgc" },
    ],
    extra: [
      [
        "search_events",
        "Search error events and performance spans in Sentry with a natural-language query; returns counts or matching events.",
        [["organizationSlug", "string", "The organization's slug"], [
          "naturalLanguageQuery",
          "string",
          "What to find",
        ]],
        true,
      ],
      ["get_event_attachment", "Download an attachment of a Sentry event.", [
        ["organizationSlug", "string", "The organization's slug"],
        ["eventId", "string", "Event ID"],
        ["attachmentId", "string", "Attachment ID"],
      ], true],
      [
        "analyze_issue_with_seer",
        "Analyze an issue with Seer AI to find the root cause and a code fix.",
        [["organizationSlug", "string", "The organization's slug"], [
          "issueId",
          "string",
          "The issue ID",
        ]],
        true,
      ],
      ["find_dsns", "List the client keys (DSNs) of a project.", [[
        "organizationSlug",
        "string",
        "The organization's slug",
      ], ["projectSlug", "string", "Project slug"]], true],
    ],
  },
  {
    name: "notion",
    service: "Notion",
    scope: "the Notion workspace",
    scopeParams: [],
    resources: [
      {
        noun: "page",
        verbs: "gcu",
        key: ["page_id", "string", "The page ID"],
        fields: [["title", "string", "Page title"], [
          "content",
          "string",
          "Page content in Markdown",
        ]],
      },
      {
        noun: "database",
        verbs: "gcu",
        key: ["database_id", "string", "The database ID"],
      },
      {
        noun: "block",
        verbs: "gud",
        key: ["block_id", "string", "The block ID"],
      },
      { noun: "comment", verbs: "lc" },
      { noun: "user", verbs: "lg" },
    ],
    extra: [
      [
        "search",
        "Search pages and databases in the Notion workspace by title.",
        [["query", "string", "Text to search for"], [
          "filter",
          "string",
          "page or database",
        ]],
        true,
      ],
      ["query_database", "Query a Notion database with filters and sorts.", [
        ["database_id", "string", "The database ID"],
        ["filter", "string", "Filter JSON"],
        ["sorts", "string[]", "Sort criteria"],
      ], true],
      ["append_block_children", "Append content blocks to a page or block.", [[
        "block_id",
        "string",
        "The parent block ID",
      ], ["children", "string[]", "Blocks to append"]]],
      [
        "get_block_children",
        "Retrieve the children blocks of a page or block.",
        [["block_id", "string", "The block ID"]],
        true,
      ],
      ["duplicate_page", "Duplicate a Notion page.", [[
        "page_id",
        "string",
        "The page ID",
      ]]],
      ["move_page", "Move a page under another parent.", [[
        "page_id",
        "string",
        "The page ID",
      ], ["parent_id", "string", "The new parent"]]],
    ],
  },
  {
    name: "linear",
    service: "Linear",
    scope: "the Linear workspace",
    scopeParams: [],
    resources: [
      {
        noun: "issue",
        verbs: "lgcus",
        key: ["id", "string", "The issue ID or identifier (e.g. ENG-123)"],
        fields: [
          ["title", "string", "Issue title"],
          ["description", "string", "Issue description (Markdown)"],
          ["teamId", "string", "Team ID"],
          ["priority", "number", "0 none, 1 urgent … 4 low"],
        ],
      },
      { noun: "project", verbs: "lgcu" },
      { noun: "comment", verbs: "lc" },
      { noun: "team", verbs: "lg" },
      { noun: "cycle", verbs: "lg" },
      { noun: "label", verbs: "lc" },
      { noun: "document", verbs: "lgc" },
      { noun: "initiative", verbs: "lg" },
    ],
    extra: [
      ["get_user", "Get a Linear user by name, email or ID.", [[
        "query",
        "string",
        "Name, email or ID",
      ]], true],
      [
        "list_issue_statuses",
        "List the workflow states (statuses) of a team.",
        [["teamId", "string", "Team ID"]],
        true,
      ],
      ["assign_issue", "Assign an issue to a user.", [[
        "id",
        "string",
        "Issue ID",
      ], ["assigneeId", "string", "User ID"]]],
    ],
  },
  {
    name: "jira",
    service: "Jira",
    scope: "a Jira site",
    scopeParams: [],
    resources: [
      {
        noun: "issue",
        verbs: "gcud",
        key: ["issue_key", "string", "Issue key, e.g. PROJ-123"],
        fields: [
          ["summary", "string", "Summary"],
          ["description", "string", "Description"],
          ["issue_type", "string", "Bug, Task, Story…"],
          ["project_key", "string", "Project key"],
        ],
      },
      {
        noun: "project",
        verbs: "lg",
        key: ["project_key", "string", "Project key"],
      },
      { noun: "board", verbs: "lg", key: ["board_id", "string", "Board ID"] },
      {
        noun: "sprint",
        verbs: "lgcu",
        key: ["sprint_id", "string", "Sprint ID"],
      },
      { noun: "worklog", verbs: "lc" },
      { noun: "version", verbs: "lc" },
    ],
    extra: [
      ["search", "Search Jira issues using JQL (Jira Query Language).", [[
        "jql",
        "string",
        "JQL query, e.g. 'project = PROJ AND status = Open'",
      ], ["limit", "number", "Maximum results"]], true],
      ["add_comment", "Add a comment to a Jira issue.", [[
        "issue_key",
        "string",
        "Issue key, e.g. PROJ-123",
      ], ["comment", "string", "Comment text (Markdown)"]]],
      ["get_transitions", "Get the transitions available to an issue.", [[
        "issue_key",
        "string",
        "Issue key",
      ]], true],
      [
        "transition_issue",
        "Move an issue to another status through a transition.",
        [["issue_key", "string", "Issue key"], [
          "transition_id",
          "string",
          "Transition ID",
        ]],
      ],
      ["link_issues", "Create a link between two issues.", [
        ["inward_issue_key", "string", "Inward issue"],
        ["outward_issue_key", "string", "Outward issue"],
        ["link_type", "string", "Link type"],
      ]],
      ["get_sprint_issues", "Get the issues of a sprint.", [[
        "sprint_id",
        "string",
        "Sprint ID",
      ]], true],
      ["get_user_profile", "Get a Jira user's profile.", [[
        "user_identifier",
        "string",
        "Email, account ID or name",
      ]], true],
      ["batch_create_issues", "Create several issues at once.", [[
        "issues",
        "string[]",
        "Issues to create",
      ]]],
      ["download_attachments", "Download the attachments of an issue.", [[
        "issue_key",
        "string",
        "Issue key",
      ], ["target_dir", "string", "Where to save"]]],
    ],
  },
  {
    name: "stripe",
    service: "Stripe",
    scope: "the Stripe account",
    scopeParams: [],
    resources: [
      {
        noun: "customer",
        verbs: "lgcu",
        fields: [["name", "string", "Customer name"], [
          "email",
          "string",
          "Customer email",
        ]],
      },
      { noun: "product", verbs: "lc" },
      {
        noun: "price",
        verbs: "lc",
        fields: [["product", "string", "Product ID"], [
          "unit_amount",
          "number",
          "Amount in cents",
        ], ["currency", "string", "Currency"]],
      },
      { noun: "invoice", verbs: "lgc" },
      { noun: "payment_intent", verbs: "lg" },
      { noun: "subscription", verbs: "lgu" },
      { noun: "coupon", verbs: "lc" },
      { noun: "dispute", verbs: "lu" },
    ],
    extra: [
      ["create_payment_link", "Create a payment link for a price.", [[
        "price",
        "string",
        "Price ID",
      ], ["quantity", "number", "Quantity"]]],
      ["create_invoice_item", "Add an item to a draft invoice.", [
        ["customer", "string", "Customer ID"],
        ["price", "string", "Price ID"],
        ["invoice", "string", "Invoice ID"],
      ]],
      ["finalize_invoice", "Finalize a draft invoice so it can be paid.", [[
        "invoice",
        "string",
        "Invoice ID",
      ]]],
      [
        "create_refund",
        "Refund a payment (a payment intent), in full or in part.",
        [["payment_intent", "string", "Payment intent ID"], [
          "amount",
          "number",
          "Amount to refund in cents",
        ]],
      ],
      ["cancel_subscription", "Cancel a customer's subscription.", [[
        "subscription",
        "string",
        "Subscription ID",
      ]]],
      [
        "retrieve_balance",
        "Retrieve the balance of the Stripe account.",
        [],
        true,
      ],
      [
        "search_stripe_documentation",
        "Search the Stripe documentation and support articles.",
        [["question", "string", "The question"]],
        true,
      ],
    ],
  },
  {
    name: "time",
    service: "time",
    scope: "time zones",
    scopeParams: [],
    resources: [],
    extra: [
      ["get_current_time", "Get the current time in a specific timezone.", [[
        "timezone",
        "string",
        "IANA timezone name (e.g. 'America/New_York', 'Europe/London')",
      ]], true],
      ["convert_time", "Convert a time between timezones.", [
        ["source_timezone", "string", "Source IANA timezone"],
        ["time", "string", "Time in 24-hour format (HH:MM)"],
        ["target_timezone", "string", "Target IANA timezone"],
      ], true],
    ],
  },
  {
    name: "redis",
    service: "Redis",
    scope: "the Redis database",
    scopeParams: [],
    resources: [],
    extra: [
      [
        "get",
        "Get the string value of a key.",
        [["key", "string", "The key"]],
        true,
      ],
      [
        "set",
        "Set a string value at a key, with an optional expiration in seconds.",
        [["key", "string", "The key"], ["value", "string", "The value"], [
          "expireSeconds",
          "number",
          "Expiration",
        ]],
      ],
      ["delete", "Delete one or more keys.", [["key", "string[]", "Keys"]]],
      ["list", "List keys matching a pattern.", [[
        "pattern",
        "string",
        "Pattern, e.g. user:*",
      ]], true],
      ["hset", "Set a field in a hash.", [["name", "string", "Hash key"], [
        "key",
        "string",
        "Field",
      ], ["value", "string", "Value"]]],
      ["hget", "Get a field of a hash.", [["name", "string", "Hash key"], [
        "key",
        "string",
        "Field",
      ]], true],
      ["lpush", "Push a value onto a list.", [["name", "string", "List key"], [
        "value",
        "string",
        "Value",
      ]]],
      ["publish", "Publish a message on a channel.", [[
        "channel",
        "string",
        "Channel",
      ], ["message", "string", "Message"]]],
      ["expire", "Set a timeout on a key.", [["name", "string", "Key"], [
        "expire_seconds",
        "number",
        "Seconds",
      ]]],
      ["info", "Get information and statistics about the Redis server.", [[
        "section",
        "string",
        "Section",
      ]], true],
    ],
  },
  {
    name: "aws-s3",
    service: "Amazon S3",
    scope: "an S3 bucket",
    scopeParams: [["bucket", "string", "Bucket name"]],
    resources: [],
    extra: [
      ["list_buckets", "List the S3 buckets of the account.", [], true],
      ["create_bucket", "Create an S3 bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["region", "string", "AWS region"]]],
      ["delete_bucket", "Delete an empty S3 bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ]]],
      ["list_objects", "List the objects in an S3 bucket under a prefix.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["prefix", "string", "Key prefix"]], true],
      ["get_object", "Download an object from an S3 bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["key", "string", "Object key"]], true],
      ["put_object", "Upload a file or text as an object to an S3 bucket.", [
        ["bucket", "string", "Bucket name"],
        ["key", "string", "Object key"],
        ["body", "string", "Content"],
        ["content_type", "string", "MIME type"],
      ]],
      ["delete_object", "Delete an object from an S3 bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["key", "string", "Object key"]]],
      ["copy_object", "Copy an object within or between buckets.", [
        ["source", "string", "Source bucket/key"],
        ["bucket", "string", "Target bucket"],
        ["key", "string", "Target key"],
      ]],
      ["head_object", "Get an object's metadata without its body.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["key", "string", "Object key"]], true],
      [
        "presign_url",
        "Create a pre-signed URL to download or upload an object.",
        [["bucket", "string", "Bucket name"], ["key", "string", "Object key"], [
          "expires_in",
          "number",
          "Seconds",
        ]],
        true,
      ],
      ["get_bucket_policy", "Get the access policy of a bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ]], true],
      ["put_bucket_policy", "Set the access policy of a bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ], ["policy", "string", "Policy JSON"]]],
      ["get_bucket_versioning", "Get the versioning state of a bucket.", [[
        "bucket",
        "string",
        "Bucket name",
      ]], true],
      [
        "put_bucket_lifecycle",
        "Set lifecycle rules (expiry, transitions) on a bucket.",
        [["bucket", "string", "Bucket name"], ["rules", "string[]", "Rules"]],
      ],
    ],
  },
  {
    name: "kubernetes",
    service: "Kubernetes",
    scope: "a Kubernetes namespace",
    scopeParams: [["namespace", "string", "Namespace (default: default)"]],
    resources: [
      { noun: "pod", verbs: "lgd" },
      { noun: "deployment", verbs: "lgcd" },
      { noun: "service", verbs: "lgcd" },
      { noun: "namespace", verbs: "lcd" },
      { noun: "configmap", verbs: "lgc" },
      { noun: "secret", verbs: "lg" },
      { noun: "cronjob", verbs: "l" },
      { noun: "ingress", plural: "ingresses", verbs: "lg" },
    ],
    extra: [
      ["get_pod_logs", "Get the logs of a pod's container.", [
        ["namespace", "string", "Namespace"],
        ["name", "string", "Pod name"],
        ["container", "string", "Container"],
        ["tail", "number", "Last N lines"],
      ], true],
      ["scale_deployment", "Scale a deployment to a number of replicas.", [
        ["namespace", "string", "Namespace"],
        ["name", "string", "Deployment"],
        ["replicas", "number", "Replicas"],
      ]],
      [
        "rollout_restart",
        "Restart the pods of a deployment with a rolling restart.",
        [["namespace", "string", "Namespace"], [
          "name",
          "string",
          "Deployment",
        ]],
      ],
      [
        "apply_manifest",
        "Apply a YAML manifest to the cluster (kubectl apply).",
        [["manifest", "string", "YAML"]],
      ],
    ],
  },
  {
    name: "docker",
    service: "Docker",
    scope: "the Docker host",
    scopeParams: [],
    resources: [
      {
        noun: "container",
        verbs: "lgc",
        key: ["container_id", "string", "Container ID or name"],
        fields: [["image", "string", "Image"], [
          "name",
          "string",
          "Container name",
        ], ["ports", "string[]", "Port mappings"]],
      },
      { noun: "image", verbs: "ld" },
      { noun: "volume", verbs: "lcd" },
      { noun: "network", verbs: "lcd" },
      { noun: "compose_project", verbs: "l" },
    ],
    extra: [
      ["start_container", "Start a stopped container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ]]],
      ["stop_container", "Stop a running container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ]]],
      ["restart_container", "Restart a container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ]]],
      ["remove_container", "Remove a container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ], ["force", "boolean", "Kill it first"]]],
      ["fetch_container_logs", "Fetch the logs of a container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ], ["tail", "number", "Last N lines"]], true],
      ["pull_image", "Pull an image from a registry.", [[
        "repository",
        "string",
        "Image repository",
      ], ["tag", "string", "Tag"]]],
      ["build_image", "Build an image from a Dockerfile.", [[
        "path",
        "string",
        "Build context",
      ], ["tag", "string", "Tag"]]],
      ["exec_in_container", "Run a command inside a running container.", [[
        "container_id",
        "string",
        "Container ID or name",
      ], ["command", "string[]", "Command"]]],
    ],
  },
  {
    name: "google-drive",
    service: "Google Drive",
    scope: "Google Drive",
    scopeParams: [],
    resources: [
      {
        noun: "file",
        verbs: "lgcud",
        key: ["file_id", "string", "The file ID"],
      },
      { noun: "folder", verbs: "lc" },
      { noun: "permission", verbs: "lcd" },
      { noun: "shared_drive", verbs: "lg" },
      { noun: "comment", verbs: "lc" },
    ],
    extra: [
      ["search", "Search for files in Google Drive by name or full text.", [[
        "query",
        "string",
        "Search query",
      ]], true],
      ["read_document", "Read a Google Doc as Markdown.", [[
        "document_id",
        "string",
        "Document ID",
      ]], true],
      ["read_spreadsheet", "Read a range of cells from a Google Sheet.", [[
        "spreadsheet_id",
        "string",
        "Spreadsheet ID",
      ], ["range", "string", "A1 range"]], true],
      [
        "update_spreadsheet_cells",
        "Write values into a range of a Google Sheet.",
        [["spreadsheet_id", "string", "Spreadsheet ID"], [
          "range",
          "string",
          "A1 range",
        ], ["values", "string[]", "Rows of values"]],
      ],
      ["export_file", "Export a Google Workspace file as PDF, DOCX or CSV.", [[
        "file_id",
        "string",
        "The file ID",
      ], ["mime_type", "string", "Target MIME type"]], true],
      ["share_file", "Share a file with a user by email.", [
        ["file_id", "string", "The file ID"],
        ["email", "string", "Email"],
        ["role", "string", "reader, commenter or writer"],
      ]],
    ],
  },
];

/** The corpus: 25 servers, 458 tools, in config order. */
export function toolCorpus(): CorpusServer[] {
  const servers = SPECS.map((spec) => {
    const tools: ListedTool[] = [];
    for (const r of spec.resources) {
      for (const verb of r.verbs) tools.push(verbTool(spec, r, verb));
    }
    for (const [name, description, params, readOnly] of spec.extra) {
      tools.push(listed(name, description, params, readOnly === true));
    }
    const seen = new Set<string>();
    for (const t of tools) {
      if (seen.has(t.name)) {
        throw new Error(`corpus: ${spec.name} repeats ${t.name}`);
      }
      seen.add(t.name);
    }
    return { name: spec.name, tools };
  });
  return servers;
}

/** The corpus' size: servers and tools. */
export function corpusSize(): { servers: number; tools: number } {
  const servers = toolCorpus();
  return {
    servers: servers.length,
    tools: servers.reduce((n, s) => n + s.tools.length, 0),
  };
}

if (import.meta.main) {
  const servers = toolCorpus();
  for (const s of servers) console.log(s.name, s.tools.length);
  console.log(corpusSize());
}
