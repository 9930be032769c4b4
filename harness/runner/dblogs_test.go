package runner

import (
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

const dbTarget = `version: 1
images: {debian: debian:bookworm-slim}
load: {duration: 1s, warmup: 0s, trials: 1, ready_timeout: 1s}
connections: [8]
targets:
  dbt:
    services:
      db: {build: db, port: 5432}
      server: {build: server}
    entry: server
    port: 8080
scenarios:
  plaintext: {path: /plaintext, expect: {status: 200, content_type: text/plain, body: "Hello, World!"}}
`

// A failed cell of a target with a database carries the database's last
// log lines, once: added to what the server did wrong, or to its dying,
// with the database said to be running; not added again where the reason
// names the database already, before answering or during a trial, the
// trial's kind kept.
func TestDatabaseLogs(t *testing.T) {
	m := testMatrix(t, dbTarget, "", "db", "server")
	said := map[string]string{"db": `FATAL:  password authentication failed for user "benchmarkdbuser"`, "server": "runtime: fake 1.0"}
	const running = "the database, service db-1, is running; its last log lines:\nFATAL:  password authentication failed"
	for _, tc := range []struct {
		name   string
		target *fakeTarget
		dbDies bool     // the database stops as the trial starts
		want   []string // in the reason
		once   string   // in the reason once
		why    results.Why
	}{
		{"the server answers wrong", &fakeTarget{body: "Goodbye", said: said}, false,
			[]string{"verify http://", running}, "FATAL", ""},
		{"the server stops in a trial", &fakeTarget{dieOnRun: 1, said: said}, false,
			[]string{"trial 1: service server-1 exited with code 3 during the trial", running}, "FATAL", results.WhyTargetStopped},
		{"the database does not start", &fakeTarget{exitEarly: true}, false,
			[]string{"service db-1 exited with code 3 before answering; last log lines:\npanic: cannot bind"}, "panic: cannot bind", ""},
		{"the database stops in a trial", &fakeTarget{share5xx: 0.5, said: said}, true,
			[]string{"trial 1: service db-1 exited with code 3 during the trial; last log lines:\npanic: cannot bind", "of requests failed"}, "panic: cannot bind", results.WhyTargetStopped},
	} {
		f := newFake()
		f.targets["dbt"] = tc.target
		if tc.dbDies {
			f.onRun = func(string, int) { stopService(f, "db") }
		}
		res, err, _ := run(t, f, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Cells[0]
		if c.Status != results.Failed || c.Why != tc.why || strings.Count(c.Reason, tc.once) != 1 {
			t.Errorf("%s: %s (%s) %q: want failed (%q), %q in the reason once", tc.name, c.Status, c.Why, c.Reason, tc.why, tc.once)
		}
		for _, w := range tc.want {
			if !strings.Contains(c.Reason, w) {
				t.Errorf("%s: reason %q: want %q in it", tc.name, c.Reason, w)
			}
		}
	}
}

// stopService stops f's live containers of service name, as a kill does.
func stopService(f *fakeEngine, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.containers {
		if c.spec.Labels[engine.LabelService] == name {
			c.exited = true
		}
	}
}
