import { describe, expect, it } from "vitest";
import { prepareCall } from "../execute.js";
import { ToolRegistry, toJsonSchema } from "../registry.js";
import { createTestToolContext } from "./bash/test-support.js";
import { readTodos, TODO_WRITE_CONFIRMATION, todoWriteTool } from "./todo-write.js";

const tool = todoWriteTool();
const registry = new ToolRegistry([tool]);
const call = (input: unknown) => prepareCall(registry, { id: "toolu_1", name: "TodoWrite", input });

const plan = [
  { content: "Run the tests", status: "completed", activeForm: "Running the tests" },
  { content: "Fix the failures", status: "in_progress", activeForm: "Fixing the failures" },
  { content: "Update the changelog", status: "pending", activeForm: "Updating the changelog" },
] as const;

describe("TodoWrite", () => {
  it("replaces the session's list, emits it and confirms like Claude Code", async () => {
    const context = createTestToolContext();
    expect(readTodos(context.session)).toEqual([]);

    const first = await tool.execute({ todos: [plan[0]] }, context);
    expect(first).toEqual({
      content: TODO_WRITE_CONFIRMATION,
      data: { oldTodos: [], newTodos: [plan[0]] },
    });
    expect(TODO_WRITE_CONFIRMATION).toMatch(/^Todos have been modified successfully\. /);

    const second = await tool.execute({ todos: [...plan] }, context);
    expect(second).toMatchObject({ data: { oldTodos: [plan[0]], newTodos: plan } });
    expect(readTodos(context.session)).toEqual(plan);
    expect(context.events).toEqual([
      { type: "todos", todos: [plan[0]] },
      { type: "todos", todos: plan },
    ]);
  });

  it("keeps lists apart per session", async () => {
    const one = createTestToolContext();
    await tool.execute({ todos: [...plan] }, one);
    expect(readTodos(createTestToolContext().session)).toEqual([]);
  });

  it("accepts an empty list (everything cleared)", () => {
    expect(call({ todos: [] }).ok).toBe(true);
  });

  it("rejects empty text, unknown statuses and missing fields", () => {
    const rejected = [
      { todos: [{ content: " ", status: "pending", activeForm: "Doing" }] },
      { todos: [{ content: "Do", status: "pending", activeForm: "" }] },
      { todos: [{ content: "Do", status: "done", activeForm: "Doing" }] },
      { todos: [{ content: "Do", status: "pending" }] },
      { todos: "Do it" },
      {},
    ];
    for (const input of rejected) {
      const prepared = call(input);
      expect(prepared.ok, JSON.stringify(input)).toBe(false);
      if (!prepared.ok) expect(prepared.code).toBe("tool_input_invalid");
    }
    const empty = call(rejected[0]);
    expect(!empty.ok && empty.result.content).toContain("todos.0.content: content must not be empty");
  });

  it("pins the JSON Schema the model sees", () => {
    expect(toJsonSchema(tool.inputSchema)).toMatchInlineSnapshot(`
      {
        "properties": {
          "todos": {
            "description": "The updated todo list",
            "items": {
              "properties": {
                "activeForm": {
                  "description": "The task in present continuous form, shown while it is in progress (e.g. "Running tests")",
                  "minLength": 1,
                  "type": "string",
                },
                "content": {
                  "description": "The task, in imperative form",
                  "minLength": 1,
                  "type": "string",
                },
                "status": {
                  "enum": [
                    "pending",
                    "in_progress",
                    "completed",
                  ],
                  "type": "string",
                },
              },
              "required": [
                "content",
                "status",
                "activeForm",
              ],
              "type": "object",
            },
            "type": "array",
          },
        },
        "required": [
          "todos",
        ],
        "type": "object",
      }
    `);
  });
});
