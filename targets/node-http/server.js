'use strict';
// Answers the harness's scenarios with Node's own http module, no
// dependencies: plaintext and json; json gzip-compressed (node:zlib) when
// the request accepts gzip (compression); the files under /srv/static,
// streamed from disk (static-*); and /compute. NODE_CLUSTER=1 forks one worker per core the
// harness gave the container (CPUS), the way Node services use all cores.
// Given TLS_CERT_FILE and TLS_KEY_FILE it serves TLS with node:http2's
// secure server, ALPN offering h2 and (allowHTTP1) http/1.1: an HTTP/1.1
// client is handed to the http module's own connection handling, as with
// https.createServer.
const cluster = require('node:cluster');
const fs = require('node:fs');
const http = require('node:http');
const http2 = require('node:http2');
const path = require('node:path');
const zlib = require('node:zlib');

const staticDir = '/srv/static';

// acceptsGzip says whether an Accept-Encoding header lists gzip with a
// nonzero weight.
function acceptsGzip(header) {
  if (!header) return false;
  for (const coding of header.split(',')) {
    const [name, ...params] = coding.split(';').map((s) => s.trim());
    if (name.toLowerCase() !== 'gzip') continue;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

// sendFile streams the static file the URL names, 404 when there is none.
function sendFile(res, name) {
  const file = path.join(staticDir, path.basename(name));
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain', 'Server': 'node-http' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': st.size, 'Server': 'node-http' });
    fs.createReadStream(file).on('error', () => res.destroy()).pipe(res);
  });
}

// compute answers {"result": a*b+a-b} of the query's integers a and b.
function compute(res, query) {
  const params = new URLSearchParams(query);
  const a = Number(params.get('a'));
  const b = Number(params.get('b'));
  if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || params.get('a') === '' || params.get('b') === '') {
    res.writeHead(400, { 'Content-Type': 'text/plain', 'Server': 'node-http' });
    res.end('a and b must be integers');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Server': 'node-http' });
  res.end(JSON.stringify({ result: a * b + a - b }));
}

const port = Number(process.env.PORT || 8080);
const workers = process.env.NODE_CLUSTER === '1' ? Number(process.env.CPUS || 1) : 0;

function serve() {
  const hello = 'Hello, World!';
  const handle = (req, res) => {
    if (req.method === 'GET' && req.url === '/plaintext') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Server': 'node-http' });
      res.end(hello);
    } else if (req.method === 'GET' && req.url === '/json') {
      const body = JSON.stringify({ message: hello });
      if (acceptsGzip(req.headers['accept-encoding'])) {
        zlib.gzip(body, (err, gz) => {
          if (err) {
            res.writeHead(500, { 'Server': 'node-http' });
            res.end();
            return;
          }
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Vary': 'Accept-Encoding', 'Server': 'node-http' });
          res.end(gz);
        });
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Server': 'node-http' });
      res.end(body);
    } else if (req.method === 'GET' && req.url.startsWith('/static/')) {
      sendFile(res, req.url.slice('/static/'.length).split('?')[0]);
    } else if (req.method === 'GET' && (req.url === '/compute' || req.url.startsWith('/compute?'))) {
      compute(res, req.url.slice('/compute'.length + 1));
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
