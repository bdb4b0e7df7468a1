import { describe, expect, it } from "vitest";
import { checkMcpUrl } from "./mcp-url.js";

const refused = { statusCode: 400, param: "p" };

describe("checkMcpUrl", () => {
  it("refuses loopback, private, link-local and unspecified addresses in any spelling", async () => {
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
    ])
      await expect(checkMcpUrl(url, undefined, "p"), url).rejects.toMatchObject(refused);
  });

  it("takes a public address, and with allowed hosts only those", async () => {
    await expect(checkMcpUrl("https://8.8.8.8/mcp", undefined, "p")).resolves.toBeUndefined();
    await expect(checkMcpUrl("http://127.0.0.1:9000/mcp", ["127.0.0.1"], "p")).resolves.toBeUndefined();
    await expect(checkMcpUrl("http://127.0.0.1:9000/mcp", ["127.0.0.1:9001"], "p")).rejects.toMatchObject(refused);
    await expect(checkMcpUrl("https://8.8.8.8/mcp", ["mcp.example.com"], "p")).rejects.toMatchObject(refused);
  });
});
