"""Drives an MCP server of the API with the official MCP Python SDK (tests/it/mcp.rs).

Usage: mcp_client.py PLAN.json. The plan names either the server command and its arguments
(`model-demand mcp`, spawned on stdio) or a `url` (a server's `/mcp`, reached with the SDK's
Streamable HTTP client), the tool calls to make ({"tool", "arguments"}) and the resource URIs
to read. The SDK connects, initializes, lists the tools and resources, makes every call in order and reads every
resource; what it saw is printed as one JSON document on stdout for the Rust test to compare
with the preview server's answers. The SDK itself validates each successful result's
structured content against the tool's output schema, and raises if it does not conform.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def connect(plan):
    if "url" in plan:
        return streamable_http_client(plan["url"])
    return stdio_client(StdioServerParameters(command=plan["command"], args=plan["args"]))


async def run(plan):
    async with connect(plan) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            resources = await session.list_resources()
            results = []
            for call in plan["calls"]:
                result = await session.call_tool(call["tool"], call["arguments"])
                texts = [c.text for c in result.content if c.type == "text"]
                results.append(
                    {
                        "is_error": bool(result.is_error),
                        "texts": texts,
                        "structured": result.structured_content,
                    }
                )
            read_back = []
            for uri in plan["resources"]:
                contents = (await session.read_resource(uri)).contents
                read_back.append(
                    {"uri": uri, "mime": contents[0].mime_type, "text": contents[0].text}
                )
            return {
                "protocol_version": init.protocol_version,
                "server_name": init.server_info.name,
                "instructions": init.instructions,
                "tools": [dump(t) for t in tools.tools],
                "resources": [dump(r) for r in resources.resources],
                "results": results,
                "read": read_back,
            }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        plan = json.load(f)
    json.dump(asyncio.run(run(plan)), sys.stdout)


if __name__ == "__main__":
    main()
