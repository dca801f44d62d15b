// A small MCP server on the TypeScript SDK's v2 server package
// (@modelcontextprotocol/server 2.x), served over Streamable HTTP with
// createMcpHandler, which answers both the 2026-07-28 era (server/discover,
// per-request _meta) and 2025-era requests (stateless fallback). It offers
// what a server author would write for the conformance fixtures: a
// synchronous greet and a slow tool. The package has no server-side
// implementation of the io.modelcontextprotocol/tasks extension (see
// docs/trial-ts-v2.md), so no tool can become a task.
//
//   PORT=3918 node server.mjs
import http from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";

const port = Number(process.env.PORT ?? 3918);

function build() {
  const server = new McpServer({ name: "mcptasks-trial-ts-v2", version: "1.0.0" });
  server.registerTool("greet", { description: "Greets name.", inputSchema: z.object({ name: z.string().optional() }) },
    async ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name ?? "there"}!` }] }));
  server.registerTool("slow_compute", { description: "Sleeps ms milliseconds.", inputSchema: z.object({ ms: z.number().int().min(0).max(600000).optional() }) },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms ?? 0));
      return { content: [{ type: "text", text: `slept ${ms ?? 0} ms` }] };
    });
  return server;
}

const handler = createMcpHandler(() => build());

http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, {
    method: req.method, headers, body: ["GET", "HEAD"].includes(req.method) ? undefined : Buffer.concat(chunks),
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const chunk of response.body) res.write(chunk);
  }
  res.end();
}).listen(port, "127.0.0.1", () => console.error(`listening on http://127.0.0.1:${port}/mcp`));
