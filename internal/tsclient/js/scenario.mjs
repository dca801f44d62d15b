// Drives an MCP tasks server with the official TypeScript client
// (@modelcontextprotocol/client and @modelcontextprotocol/ext-tasks) and
// prints one JSON object describing what happened; the Go test judges it.
//
//   node scenario.mjs <create|input|cancel|recover> <url> <token> [<token of another identity>]
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";

const [scenario, url, token, otherToken] = process.argv.slice(2);
const out = { scenario, events: [], inputs: [], errors: [] };

async function connect(tok, onInput) {
  const client = new Client(
    { name: "mcptasks-tsclient-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${tok}` } },
  });
  await client.connect(transport);
  const session = createTaskSessionFromClient(client, {
    endpointId: "mcptasks-reference",
    onInputRequest: onInput,
    onError: (e) => out.errors.push(`${e.name}: ${e.message}`),
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
