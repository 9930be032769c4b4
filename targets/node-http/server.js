'use strict';
// Answers the harness's plaintext and json scenarios with Node's own http
// module, no dependencies. NODE_CLUSTER=1 forks one worker per core the
// harness gave the container (CPUS), the way Node services use all cores.
// Given TLS_CERT_FILE and TLS_KEY_FILE it serves TLS with node:http2's
// secure server, ALPN offering h2 and (allowHTTP1) http/1.1: an HTTP/1.1
// client is handed to the http module's own connection handling, as with
// https.createServer.
const cluster = require('node:cluster');
const fs = require('node:fs');
const http = require('node:http');
const http2 = require('node:http2');

const port = Number(process.env.PORT || 8080);
const workers = process.env.NODE_CLUSTER === '1' ? Number(process.env.CPUS || 1) : 0;

function serve() {
  const hello = 'Hello, World!';
  const handle = (req, res) => {
    if (req.method === 'GET' && req.url === '/plaintext') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Server': 'node-http' });
      res.end(hello);
    } else if (req.method === 'GET' && req.url === '/json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Server': 'node-http' });
      res.end(JSON.stringify({ message: hello }));
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain', 'Server': 'node-http' });
      res.end('not found');
    }
  };
  const cert = process.env.TLS_CERT_FILE;
  const server = cert
    ? http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(process.env.TLS_KEY_FILE), allowHTTP1: true }, handle)
    : http.createServer(handle);
  server.listen(port);
}

if (workers > 0 && cluster.isPrimary) {
  // The harness reads this line to record the runtime version.
  console.log(`runtime: node ${process.version}`);
  console.log(`listening on :${port} with ${workers} workers`);
  for (let i = 0; i < workers; i++) cluster.fork();
  cluster.on('exit', (w, code) => { console.error(`worker ${w.process.pid} exited ${code}`); process.exit(1); });
} else {
  if (workers === 0) {
    console.log(`runtime: node ${process.version}`);
    console.log(`listening on :${port}, one process${process.env.TLS_CERT_FILE ? ', TLS (h2, http/1.1)' : ''}`);
  }
  serve();
}
