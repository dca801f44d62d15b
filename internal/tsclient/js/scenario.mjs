// Drives an MCP tasks server with the official TypeScript client
// (@modelcontextprotocol/client and @modelcontextprotocol/ext-tasks) and
// prints one JSON object describing what happened; the Go test judges it.
//
//   node scenario.mjs <create|input|cancel|recover> <url> <token> [<token of another identity>]
//
// With MCPTASKS_WIRE=2026-07-28 the client negotiates the 2026-07-28
// revision (server/discover, no initialize) and the extension library
// speaks its V2 task wire (flat CreateTaskResult, tasks/update), its
// requests posted by rawDispatch below with the routing headers.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const [scenario, url, token, otherToken] = process.argv.slice(2);
const out = { scenario, events: [], inputs: [], errors: [] };

const modern = process.env.MCPTASKS_WIRE === "2026-07-28";
const clientInfo = { name: "mcptasks-tsclient-test", version: "1.0.0" };
let nextId = 1;

// rawDispatch posts one framed V2 request and returns its JSON-RPC
// response, read from a JSON body or an event stream.
function rawDispatcher(tok) {
  return async (request, options) => {
    const body = { jsonrpc: "2.0", ...request };
    if (body.id === undefined) body.id = `raw-${nextId++}`;
    const params = body.params ?? {};
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${tok}`,
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": body.method,
    };
    if (body.method === "tools/call" && typeof params.name === "string") headers["Mcp-Name"] = params.name;
    if (body.method.startsWith("tasks/") && typeof params.taskId === "string") headers["Mcp-Name"] = params.taskId;
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: options?.signal });
    const text = await res.text();
    if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
      for (const block of text.split(/\n\n/)) {
        const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (!data) continue;
        const msg = JSON.parse(data);
        if (msg.id === body.id) return msg;
      }
      throw new Error(`no response to ${body.method} on the event stream`);
    }
    return JSON.parse(text);
  };
}

async function connect(tok, onInput) {
  const capabilities = { elicitation: { form: {} } };
  const client = new Client(clientInfo, modern
    ? { capabilities: { ...capabilities, extensions: { "io.modelcontextprotocol/tasks": {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } }
    : { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${tok}` } },
  });
  await client.connect(transport);
  out.era = client.getProtocolEra?.();
  const v2 = modern
    ? {
        rawDispatch: rawDispatcher(tok),
        v2RequestFraming: {
          protocolVersion: "2026-07-28",
          clientInfo,
          clientCapabilities: { ...capabilities, extensions: { "io.modelcontextprotocol/tasks": {} } },
        },
      }
    : {};
  const session = createTaskSessionFromClient(client, {
    endpointId: "mcptasks-reference",
    onInputRequest: onInput,
    onError: (e) => out.errors.push(`${e.name}: ${e.message}`),
    ...v2,
  });
  return { client, session };
}

function view(t) {
  return t ? { taskId: t.taskId, status: t.status, ttl: t.ttl } : undefined;
}

function record(e) {
  if (e.type === "task") out.events.push(view(e.task));
  else out.events.push({ outcome: e.outcome.status });
}

function outcomeOf(o) {
  const r = { status: o.status };
  if (o.status === "completed") r.result = o.result;
  if (o.status === "failed") r.error = `${o.error.code ?? ""} ${o.error.message}`;
  return r;
}

const answer = async (request, ctx) => {
  out.inputs.push({ kind: request.kind, message: request.params?.message, taskId: ctx.taskId, delivery: ctx.delivery });
  return { action: "accept", content: { answer: "blue" } };
};

const { client, session } = await connect(token, answer);
try {
  switch (scenario) {
    case "create": {
      // Task creation, then the library polls tasks/get until the end.
      const ex = await session.callTool("fixture_sleep_required", { ms: 300 }, { task: { preference: "require", retentionMs: 60000 } });
      out.kind = ex.kind;
      out.taskId = ex.handle?.taskId;
      const { outcome } = await ex.settle({ onEvent: record });
      out.outcome = outcomeOf(outcome);
      break;
    }
    case "input": {
      // The task asks a question; the library's input handler answers it.
      const ex = await session.callTool("fixture_input", { question: "favourite colour?" }, { task: { preference: "require" } });
      out.kind = ex.kind;
      out.taskId = ex.handle?.taskId;
      const { outcome } = await ex.settle({ onEvent: record });
      out.outcome = outcomeOf(outcome);
      break;
    }
    case "cancel": {
      // A long task is cancelled once the library has seen it working.
      const ex = await session.callTool("fixture_sleep_required", { ms: 600000 }, { task: { preference: "require" } });
      out.kind = ex.kind;
      out.taskId = ex.handle?.taskId;
      let cancelled = false;
      const { outcome } = await ex.settle({
        onEvent: async (e) => {
          record(e);
          if (!cancelled && e.type === "task" && e.task.status === "working") {
            cancelled = true;
            await ex.cancel();
          }
        },
      });
      out.outcome = outcomeOf(outcome);
      break;
    }
    case "recover": {
      // One connection starts a task and hands it off; a new connection of
      // the same identity recovers it by id, once through a serialized
      // reference and once through a bare task id.
      const ex = await session.callTool("fixture_sleep_required", { ms: 400 }, { task: { preference: "require", retentionMs: 60000 } });
      out.kind = ex.kind;
      out.taskId = ex.handle?.taskId;
      let saved;
      await ex.handoff((ref) => { saved = JSON.parse(JSON.stringify(ref)); });
      out.reference = saved;
      const again = await connect(token, answer);
      try {
        const snap = await again.session.task(saved.taskId).snapshot();
        out.snapshot = view(snap);
        const resumed = await again.session.resumeTask(saved);
        out.resumedKind = resumed.kind;
        const { outcome } = await resumed.settle({ onEvent: record });
        out.outcome = outcomeOf(outcome);
        const byId = await again.session.task(saved.taskId).result();
        out.resultById = outcomeOf(byId);
      } finally {
        await again.session.close();
        await again.client.close();
      }
      if (otherToken) {
        // Another identity must not find the task.
        const other = await connect(otherToken, answer);
        try {
          await other.session.task(saved.taskId).snapshot();
          out.otherIdentity = "found";
        } catch (e) {
          out.otherIdentity = `${e.name}: ${e.code ?? ""} ${e.message}`;
        } finally {
          await other.session.close();
          await other.client.close();
        }
      }
      break;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
} catch (e) {
  out.errors.push(`${e.name}: ${e.message}`);
} finally {
  await session.close();
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
