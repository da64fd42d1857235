"""Plays the contract's instructions in order, as an agent would, with the official MCP Python
SDK (tests/it/agents_sdk.rs): connect (stdio or Streamable HTTP, as in mcp_client.py), read the
instructions and the tool list, read the contract (get_contract), list the models
(list_models with its defaults), look each listed model up (get_model), read the first one's
history (get_demand_history), then ask for more than the limit allows. Every step is printed,
with its result's bytes as the client holds it (content blocks and structuredContent, compact
JSON), for the Rust test to check the budgets and that every unknown stays unknown.

Usage: mcp_agent.py PLAN.json (the `command` and `args`, or the `url`, of mcp_client.py).
"""

import asyncio
import json
import sys

from mcp import ClientSession

# One way to reach a server for both clients (stdio or Streamable HTTP): mcp_client.py's.
from mcp_client import connect, dump


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def step(session, steps, tool, arguments):
    result = await session.call_tool(tool, arguments)
    texts = [c.text for c in result.content if c.type == "text"]
    received = {"content": [{"type": "text", "text": t} for t in texts]}
    if result.structured_content is not None:
        received["structuredContent"] = result.structured_content
    received["isError"] = bool(result.is_error)
    steps.append(
        {
            "tool": tool,
            "arguments": arguments,
            "bytes": len(compact(received).encode()),
            "is_error": bool(result.is_error),
            "text": texts[0] if texts else None,
            "structured": result.structured_content is not None,
        }
    )
    return json.loads(texts[0]) if texts and not result.is_error else None


async def run(plan):
    async with connect(plan) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            tools_bytes = len(
                compact(
                    {"tools": [dump(t) for t in tools.tools]}
                ).encode()
            )
            steps = []
            # 1. Read the contract before querying models.
            contract = await step(session, steps, "get_contract", {})
            # 2. List: the defaults.
            page = await step(session, steps, "list_models", {})
            # 3. Look up every listed model by its ID as written.
            for record in page["models"]:
                await step(session, steps, "get_model", {"model_id": record["model_id"]})
            # 4. History of the first one.
            await step(session, steps, "get_demand_history", {"model_id": page["models"][0]["model_id"]})
            # 5. The definitions of the fields read, then the whole contract (within the limit since issue 41).
            await step(session, steps, "get_contract", {"fields": page["fields"]})
            await step(session, steps, "get_contract", {"fields": ["*"]})
            return {
                "instructions": init.instructions,
                "tools_bytes": tools_bytes,
                "contract_instructions": contract["agent_instructions"],
                "steps": steps,
            }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    json.dump(asyncio.run(run(plan)), sys.stdout)


if __name__ == "__main__":
    main()
