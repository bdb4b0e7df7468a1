import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { McpHostGuard } from "./host-guard.js";

const refused = { code: "mcp_url_refused" };
const addressOf = (url: string, allowed?: string[], lookup?: (host: string) => Promise<string[]>) =>
  new McpHostGuard(allowed, lookup).addressOf(new URL(url));

describe("McpHostGuard", () => {
  it("refuses loopback, private, link-local, unspecified and multicast addresses in any spelling", async () => {
    for (const url of [
      "http://127.0.0.1/mcp",
      "http://2130706433/mcp", // 127.0.0.1 as one number
      "http://0x7f.1/mcp",
      "http://localhost:8080/mcp",
      "http://[::1]/mcp",
      "http://[::ffff:127.0.0.1]/mcp",
      "http://[::]/mcp",
      "http://0.0.0.0/mcp",
      "http://10.0.0.8/mcp",
      "http://172.20.1.1/mcp",
      "http://192.168.1.1/mcp",
      "http://169.254.169.254/latest/meta-data",
      "http://[fd00::1]/mcp",
      "http://[fe80::1]/mcp",
      "http://224.0.0.1/mcp",
      "http://[ff02::1]/mcp",
    ])
      await expect(addressOf(url), url).rejects.toMatchObject(refused);
  });

  it("refuses every address of this machine's interfaces, whatever its range", async () => {
    const own = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) => entry.address.replace(/%.*$/, ""));
    for (const address of own) {
      const host = address.includes(":") ? `[${address}]` : address;
      await expect(addressOf(`http://${host}/mcp`), address).rejects.toMatchObject(refused);
      await expect(addressOf("http://mcp.test/mcp", undefined, async () => [address])).rejects.toMatchObject(refused);
    }
  });

  it("takes a public address, and with allowed hosts only those names or addresses", async () => {
    await expect(addressOf("https://8.8.8.8/mcp")).resolves.toBe("8.8.8.8");
    await expect(addressOf("http://127.0.0.1:9000/mcp", ["127.0.0.1"])).resolves.toBe("127.0.0.1");
    await expect(addressOf("http://127.0.0.1:9000/mcp", ["127.0.0.1:9001"])).rejects.toMatchObject(refused);
    await expect(addressOf("https://8.8.8.8/mcp", ["mcp.example.com"])).rejects.toMatchObject(refused);
    const toLoopback = async () => ["127.0.0.1"];
    await expect(addressOf("http://mcp.example.com/mcp", ["mcp.example.com"], toLoopback)).resolves.toBe("127.0.0.1");
    await expect(addressOf("http://any.test/mcp", ["127.0.0.1"], toLoopback)).resolves.toBe("127.0.0.1");
  });

  it("resolves a name once and keeps its first reachable address", async () => {
    const answers = [["10.0.0.1", "8.8.8.8"], ["127.0.0.1"]];
    let calls = 0;
    const guard = new McpHostGuard(undefined, async () => answers[calls++] ?? []);
    await expect(guard.addressOf(new URL("https://mcp.test/a"))).resolves.toBe("8.8.8.8");
    await expect(guard.addressOf(new URL("https://MCP.test./b"))).resolves.toBe("8.8.8.8");
    expect(guard.pinnedAddress("mcp.test")).toBe("8.8.8.8");
    expect(calls).toBe(1);
  });
});
