'use strict';
// Study 002's Node.js client service: it calls the records API and answers
// /testNoProcess (bytes passed through), /testReflection (JSON.parse and
// JSON.stringify, the generic path) and /testNoReflection (JSON.parse, then
// a hand-written writer for the known record shape), each for ?records=N.
const http = require('node:http');

const port = Number(process.env.PORT || 8080);
// The harness lists the records API's replicas in RECORDS_API_ADDRS.
const upstream = new URL(`http://${(process.env.RECORDS_API_ADDRS || 'records-api:8080').split(',')[0]}`);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function fetchRecords(n, cb) {
  const req = http.get({ host: upstream.hostname, port: upstream.port, path: `/?n=${n}`, agent }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      if (res.statusCode !== 200) return cb(new Error(`records API: ${res.statusCode}`));
      cb(null, Buffer.concat(chunks));
    });
    res.on('error', cb);
  });
  req.on('error', cb);
}

// writeRecords serializes [{Id, Name, Time}] without the generic
// serializer; JSON.stringify on each string keeps the escaping correct.
function writeRecords(records) {
  let out = '[';
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (i > 0) out += ',';
    out += '{"Id":' + JSON.stringify(r.Id) + ',"Name":' + JSON.stringify(r.Name) + ',"Time":' + Number(r.Time) + '}';
  }
  return out + ']';
}

const handlers = {
  '/testNoProcess': (body) => body,
  '/testReflection': (body) => JSON.stringify(JSON.parse(body)),
  '/testNoReflection': (body) => writeRecords(JSON.parse(body)),
};

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const handle = handlers[url.pathname];
  if (req.method !== 'GET' || !handle) {
    res.writeHead(404, { 'Content-Type': 'text/plain', 'Server': 'node-serialization' });
    return res.end('not found');
  }
  fetchRecords(url.searchParams.get('records'), (err, body) => {
    if (err) {
      res.writeHead(502, { 'Content-Type': 'text/plain', 'Server': 'node-serialization' });
      return res.end(err.message);
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Server': 'node-serialization' });
    res.end(handle(body));
  });
}).listen(port);

// The harness reads this line to record the runtime version.
console.log(`runtime: node ${process.version}`);
console.log(`listening on :${port}, upstream ${upstream.origin}`);
