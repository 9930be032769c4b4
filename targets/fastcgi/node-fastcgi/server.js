'use strict';
// A FastCGI responder with node-fastcgi, the library study 003 measured:
// its createServer mirrors http.createServer.
const fcgi = require('node-fastcgi');

const port = Number(process.env.PORT || 9000);
const hello = 'Hello, World!';

fcgi.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/plaintext') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(hello);
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  }
}).listen(port);

// The harness reads this line to record the runtime version.
console.log(`runtime: node ${process.version}`);
console.log(`FastCGI on :${port}`);
