'use strict';
// Answers TechEmpower's four database tests (db, queries, fortunes, updates)
// with Node's own http module and node-postgres (Debian's node-pg, installed
// by apt: no npm registry here). NODE_CLUSTER=1 forks one worker per core
// the harness gave the target (CPUS). The connections, POOL_PER_CPU (4
// unless set) per core, are shared out among the processes.
//
// The database is the target's "db" service: DB_ADDRS (host:port, set by
// the harness), DB_USER, DB_PASSWORD, DB_NAME (TFB's by default).
const cluster = require('node:cluster');
const http = require('node:http');
const { Pool } = require('pg');

const port = Number(process.env.PORT || 8080);
const cpus = Number(process.env.CPUS || 1);
const workers = process.env.NODE_CLUSTER === '1' ? cpus : 0;
const worldRows = 10000;

function pool() {
  const [host, dbPort] = (process.env.DB_ADDRS || 'localhost:5432').split(',')[0].split(':');
  const connections = cpus * Number(process.env.POOL_PER_CPU || 4);
  return new Pool({
    host, port: Number(dbPort),
    user: process.env.DB_USER || 'benchmarkdbuser',
    password: process.env.DB_PASSWORD || 'benchmarkdbpass',
    database: process.env.DB_NAME || 'hello_world',
    max: Math.max(1, Math.floor(connections / Math.max(workers, 1))),
  });
}

// TFB's queries parameter: 1..500, anything not an integer is 1.
function count(url) {
  const q = new URL(url, 'http://x').searchParams.get('queries');
  const n = /^-?\d+$/.test(q || '') ? Number(q) : 1;
  return Math.min(Math.max(n, 1), 500);
}

const randomId = () => 1 + Math.floor(Math.random() * worldRows);

const escapes = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (s) => s.replace(/[&<>"']/g, (c) => escapes[c]);

function serve() {
  const db = pool();
  // Prepared once per connection by node-postgres, by name.
  const selectWorld = (id) => db.query({ name: 'world', text: 'SELECT id, randomnumber FROM World WHERE id = $1', values: [id] })
    .then((r) => ({ id: r.rows[0].id, randomNumber: r.rows[0].randomnumber }));
  const updateWorld = (w) => db.query({ name: 'update', text: 'UPDATE World SET randomnumber = $1 WHERE id = $2', values: [w.randomNumber, w.id] });
  const read = (n) => Promise.all(Array.from({ length: n }, () => selectWorld(randomId())));

  const routes = {
    '/db': async () => json(await selectWorld(randomId())),
    '/queries': async (req) => json(await read(count(req.url))),
    '/updates': async (req) => {
      const rows = await read(count(req.url));
      for (const w of rows) w.randomNumber = randomId();
      await Promise.all(rows.map(updateWorld)); // each its own statement: no two lock rows in different orders
      return json(rows);
    },
    '/fortunes': async () => {
      const { rows } = await db.query({ name: 'fortunes', text: 'SELECT id, message FROM Fortune' });
      rows.push({ id: 0, message: 'Additional fortune added at request time.' });
      rows.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
      const body = '<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>' +
        '<tr><th>id</th><th>message</th></tr>' +
        rows.map((f) => `<tr><td>${f.id}</td><td>${escape(f.message)}</td></tr>`).join('') +
        '</table></body></html>';
      return ['text/html; charset=utf-8', body];
    },
  };
  const json = (v) => ['application/json', JSON.stringify(v)];

  http.createServer((req, res) => {
    const route = req.method === 'GET' && routes[req.url.split('?')[0]];
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/plain', 'Server': 'node-pg' });
      res.end('not found');
      return;
    }
    route(req).then(([type, body]) => {
      res.writeHead(200, { 'Content-Type': type, 'Server': 'node-pg' });
      res.end(body);
    }, (err) => {
      // A database that does not answer fails verification and counts as errors under load.
      console.error(`database: ${err.message}`);
      res.writeHead(500, { 'Content-Type': 'text/plain', 'Server': 'node-pg' });
      res.end('database error');
    });
  }).listen(port);
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
    console.log(`listening on :${port}, one process`);
  }
  serve();
}
