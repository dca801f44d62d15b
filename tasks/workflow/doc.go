// Package workflow runs multi-step workflows as MCP tasks: a client starts
// one with a prompt, the server runs its server-side steps inside a task,
// and hands the remaining steps to the client, which continues them with
// tool calls bound to the task.
//
// A Workflow is a named list of Steps run in order. Each step calls a
// tool with arguments built from a JSON template (see Templates below) that may refer to the
// prompt's arguments and to earlier steps' outputs, and is run either by
// the server (ModeServer) or deferred to the client (ModeClient).
//
// Runner.Start creates a task owned by the caller (the prompt request
// cannot be task-augmented in MCP 2025-11-25, so the server creates the
// task itself and names it in its reply), then runs server steps in
// order. Each step's outcome is written to the task's variables before
// the next step starts. Execution pauses, with the task still working,
// at the first client step, at a failed step, or at a step whose input
// depends on a failed or skipped step ("unresolved dependency"). A
// workflow whose server stopped mid-step is taken for "interrupted" by a
// bound call once its task has not changed for the step timeout.
//
// Runner.Bind and Runner.Record continue a paused workflow from a client's
// tool call that names the task in _meta (io.modelcontextprotocol/related-task):
// the call's result becomes the step's output, and the server steps after
// it run. When every step is done the task completes with a summary, so
// tasks/result returns it.
//
// All state lives in the task's variables, under the names
//
//	server.workflow.name                  the workflow's name
//	server.workflow.args                  the prompt arguments (object)
//	server.workflow.status                running, paused or completed
//	server.workflow.pause                 {step, reason, message} while paused
//	server.workflow.steps.STEP.status     running, done, failed or skipped
//	server.workflow.steps.STEP.output     a server step's output
//	server.workflow.steps.STEP.error      why a step failed
//	client.workflow.steps.STEP.output     a client step's output
//
// so any instance sharing the store, or a restarted one, continues a
// workflow from where it stopped, and a requestor watches it through
// tasks/get, whose _meta shows the variables. A workflow task never holds
// a work lease (it is created directly in the store, not started on the
// engine), so while it waits for its client no reaper ends it; its ttl
// still bounds how long it may wait.
//
// # Templates
//
// A step's arguments are a JSON value used as a template. Every string in
// it (object keys excepted) may hold references written {{ref}}:
//
//   - {{args.NAME}}: the prompt argument NAME (a string);
//   - {{steps.STEP.output}}: the whole output of the earlier step STEP;
//   - {{steps.STEP.output.a.b.0}}: a member of that output, following
//     object keys and, for digits, array indexes.
//
// A string that is exactly one reference is replaced by the referenced
// JSON value, whatever its type. A reference inside longer text is
// replaced by its text: a string's contents, any other value as compact
// JSON. Nothing else is interpreted: no expressions, no functions, no
// escapes; "{{" without a closing "}}" stays as it is. Substitution works
// on decoded JSON values and re-encodes them, so a value can never break
// out of the string or object it lands in.
//
// The package does not depend on any MCP SDK; adapters/gosdk/gosdkflow
// serves workflows as prompts of the official Go SDK.
package workflow
