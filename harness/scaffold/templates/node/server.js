'use strict';
// The {{.Name}} target: answers the harness's plaintext and json scenarios
// with Node's own http module.
const http = require('node:http');

const port = Number(process.env.PORT || 8080); // set by the harness
const hello = 'Hello, World!';

http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/plaintext') {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Server': '{{.Name}}' });
    res.end(hello);
  } else if (req.method === 'GET' && req.url === '/json') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Server': '{{.Name}}' });
    res.end(JSON.stringify({ message: hello }));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain', 'Server': '{{.Name}}' });
    res.end('not found');
  }
}).listen(port);
// The harness records the runtime from this line.
console.log(`runtime: node ${process.version}`);
