// The serve bench's floor: a bare streaming proxy in one Node.js process, with no agent loop, no
// parsing and no storage. It forwards POST /v1/responses to UPSTREAM_URL and copies the stream's
// bytes back as they arrive, over keep-alive connections, as gyre serve's upstream calls are. What
// it adds to a stream is what any Node.js server adds by reading one socket and writing another.
import { Agent, createServer, request } from "node:http";

const upstream = new URL(process.env.UPSTREAM_URL);
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(404).end();
    return;
  }
  const forward = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: "POST",
      agent,
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "text/plain" });
      answer.pipe(res);
    },
  );
  forward.on("error", () => res.destroy());
  // A client that goes away mid-stream takes the upstream call with it.
  res.on("close", () => {
    if (!res.writableFinished) forward.destroy();
  });
  req.pipe(forward);
});

server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
