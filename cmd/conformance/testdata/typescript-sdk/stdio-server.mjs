// A stdio MCP server built on the official TypeScript SDK's experimental
// tasks API, for the --command trial of the conformance tool (see stdio.sh).
// It is the smallest server that offers what the suite exercises: a plain
// tool, a tool that runs as a task, an in-memory task store. Logs go to
// stderr; stdout carries only MCP messages.
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

const server = new McpServer(
  { name: 'ts-sdk-stdio-trial', version: '0.0.1' },
  {
    capabilities: { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } },
    taskStore: new InMemoryTaskStore(),
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

server.registerTool('greet', {
  description: 'Says hello (no task support)',
  inputSchema: { name: z.string().optional() },
}, async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name ?? 'there'}` }] }));

server.experimental.tasks.registerToolTask('wait', {
  description: 'Waits ms milliseconds as a task, then completes',
  inputSchema: { ms: z.number().default(100) },
}, {
  async createTask({ ms }, { taskStore, taskRequestedTtl }) {
    const task = await taskStore.createTask({ ttl: taskRequestedTtl });
    setTimeout(() => {
      taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `waited ${ms} ms` }] })
        .catch((err) => console.error('storing the result:', err));
    }, ms);
    return { task };
  },
  async getTask(_args, { taskId, taskStore }) { return await taskStore.getTask(taskId); },
  async getTaskResult(_args, { taskId, taskStore }) { return await taskStore.getTaskResult(taskId); },
});

process.on('unhandledRejection', (err) => console.error('unhandled rejection:', err));
await server.connect(new StdioServerTransport());
console.error('ts-sdk-stdio-trial: serving MCP over stdio');
