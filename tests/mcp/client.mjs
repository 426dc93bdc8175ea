// Drives pgbrain's MCP server with the official TypeScript SDK client, over
// stdio or streamable HTTP, and checks what an agent relies on: every tool
// answers, structured content validates against the tool's output schema
// (checked here with Ajv as well as by the SDK), and the whole brain can be
// listed through cursors. Run by cmd/pgbrain's TestTypeScriptSDKClient:
//
//   node client.mjs stdio PGBRAIN_BINARY [ARGS...]     (env passes the database)
//   node client.mjs http URL TOKEN
//
// Prints one JSON summary line on stdout; exits 1 with the reason on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft7 from "ajv";

const [mode, target, ...rest] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`client.mjs (${mode}): ${msg}`);
  process.exit(1);
};

let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: rest, env: process.env, stderr: "inherit" });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${rest[0]}` } },
  });
} else {
  fail("usage: client.mjs stdio BINARY [ARGS...] | client.mjs http URL TOKEN");
}

const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);

const validators = {};
const { tools } = await client.listTools();
for (const t of tools) {
  if (!t.outputSchema) fail(`tool ${t.name} has no output schema`);
  const ajv = (t.outputSchema.$schema || "").includes("2020-12")
    ? new Ajv2020({ strict: false, allErrors: true })
    : new AjvDraft7({ strict: false, allErrors: true });
  validators[t.name] = ajv.compile(t.outputSchema);
}

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const sc = res.structuredContent;
  if (!sc) fail(`${name}: no structured content`);
  if (!validators[name](sc)) {
    fail(`${name}: structured content breaks the output schema: ${JSON.stringify(validators[name].errors)}`);
  }
  if (res.content?.[0]?.type !== "text" || JSON.stringify(JSON.parse(res.content[0].text)) !== JSON.stringify(sc)) {
    fail(`${name}: the text copy differs from the structured content`);
  }
  return sc;
}

const summary = { tools: tools.map((t) => t.name).sort(), calls: 0 };
const calls = [
  ["list_sources", {}],
  ["search", { query: "project" }],
  ["query", { query: "who works on the project?", limit: 5 }],
  ["search", { query: "数据 🧠 émigré" }],
  ["list_pages", { limit: 3 }],
  ["get_page", { slug: "no/such-page" }],
  ["search", { query: "" }], // invalid: still a valid, schema-conforming answer
];
for (const [name, args] of calls) {
  await call(name, args);
  summary.calls++;
}

// Every page through list_pages cursors.
const seen = new Set();
let cursor;
do {
  const page = await call("list_pages", cursor ? { cursor, limit: 100 } : { limit: 100 });
  summary.calls++;
  for (const p of page.pages) {
    const key = `${p.source_id}/${p.slug}`;
    if (seen.has(key)) fail(`list_pages repeated ${key}`);
    seen.add(key);
  }
  cursor = page.next_cursor;
} while (cursor);
summary.listed_pages = seen.size;

// Every page as a resource, through resources/list cursors, and one read.
let resources = 0;
let first;
let rc;
do {
  const r = await client.listResources(rc ? { cursor: rc } : {});
  resources += r.resources.length;
  first ??= r.resources[0];
  rc = r.nextCursor;
} while (rc);
summary.resources = resources;
if (first) {
  const read = await client.readResource({ uri: first.uri });
  const c = read.contents?.[0];
  if (!c || c.mimeType !== "text/markdown" || typeof c.text !== "string" || c.uri !== first.uri) {
    fail(`resources/read ${first.uri}: ${JSON.stringify(read).slice(0, 300)}`);
  }
  summary.read = first.uri;
}
const templates = await client.listResourceTemplates();
summary.templates = templates.resourceTemplates.map((t) => t.uriTemplate);

await client.close();
console.log(JSON.stringify(summary));
