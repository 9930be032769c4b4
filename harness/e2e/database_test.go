package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/cpuset"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// database is TechEmpower's database tests over a real PostgreSQL (the
// official image or its stand-in) seeded with TFB's tables, on a core of
// its own: go-pgx at the queries parameter's clamp above 500 (what each
// value must give, a word, 0 and 1 included, is harness/verify's
// TestClamp), and a test-only
// server whose fortunes page is not escaped and whose updates are answered
// but never written. A request of 500 queries takes about 0.5 s here alone
// and 3 to 4 times that beside CI's parallel builds; its timeout is far
// above either, so that no cell's status rests on how busy the machine is.
const database = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm, postgres: postgres:17-bookworm}
load: {duration: 2s, warmup: 0, trials: 1, timeout: 30s, ready_timeout: 90s}
cpus: [1]
connections: [16]
targets:
  db-go-pgx:
    services:
      db: {build: ROOT/targets/database/postgres, port: 5432, cpus: 1}
      server: {build: ROOT/targets/database/go-pgx}
    entry: server
    port: 8080
    scenarios: [db, queries, fortunes, updates]
  db-faulty:
    services:
      db: {build: ROOT/targets/database/postgres, port: 5432, cpus: 1}
      server: {build: ROOT/harness/e2e/testdata/db-faulty}
    entry: server
    port: 8080
    scenarios: [fortunes, updates]
scenarios:
  db:
    path: /db
    expect: {status: 200, content_type: application/json, tfb: {test: db}}
  queries:
    path: /queries?queries={queries}
    params: {queries: ["501"]}
    expect: {status: 200, content_type: application/json, tfb: {test: queries, queries: "{queries}"}}
  fortunes:
    path: /fortunes
    expect: {status: 200, content_type: text/html, tfb: {test: fortunes}}
  updates:
    path: /updates?queries={queries}
    params: {queries: ["501"]}
    expect: {status: 200, content_type: application/json, tfb: {test: updates, queries: "{queries}"}}
`

// TestDatabase: go-pgx's database cells verify by TFB's rules and are
// measured, with the database recorded beside the server on a core of its
// own (placed, and the placement said, where the machine has too few),
// and its updates are seen written in the database; the server whose
// fortunes are not escaped fails its cell, and the one whose updates are
// never written fails those, each reason naming the broken rule; nothing
// is left on the engine.
func TestDatabase(t *testing.T) {
	eng := connect(t)
	file := writeRooted(t, database)
	out := t.TempDir()
	code, _ := runCLI(context.Background(), t, "run", "-f", file, "--out", out, "--no-ceiling")
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d (db-faulty fails)", code, cli.ExitFailed)
	}
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]*results.Cell{}
	for id, c := range cellsByID(run) {
		checkPlacement(t, c)
		cells[strings.Replace(id, "/together", "", 1)] = c // on a 2-core machine the generator shares the server's core
	}
	for _, id := range []string{"db-go-pgx/db/1cpu/c16", "db-go-pgx/fortunes/1cpu/c16",
		"db-go-pgx/queries?queries=501/1cpu/c16", "db-go-pgx/updates?queries=501/1cpu/c16"} {
		c := cells[id]
		if c == nil || c.Status != results.OK || c.Summary == nil || c.Summary.RPS <= 0 {
			t.Errorf("%s = %+v, want ok with rps", id, c)
			continue
		}
		if c.Image == nil || len(c.Image.Services) != 2 || !strings.Contains(c.Image.RuntimeVersion, "PostgreSQL") {
			t.Errorf("%s: image record %+v, want the db and server services and PostgreSQL's version", id, c.Image)
		}
		if len(c.Trials) > 0 && c.Trials[0].Services["db"].MemPeakMiB <= 0 {
			t.Errorf("%s: by service %+v, want the database's own memory", id, c.Trials[0].Services)
		}
	}
	if c := cells["db-faulty/fortunes/1cpu/c16"]; c == nil || c.Status != results.Failed ||
		!strings.Contains(c.Reason, string(verify.RuleEscaped)+`: fortunes: fortune 11 went out unescaped, as markup: "<script>`) ||
		!strings.Contains(c.Reason, string(verify.RulePage)+": fortunes") || !strings.Contains(c.Reason, "&lt;script") {
		t.Errorf("db-faulty/fortunes = %+v, want failed by the %s rule naming the <script> fortune, and the %s rule showing the escaped script it wanted",
			c, verify.RuleEscaped, verify.RulePage)
	}
	checkWrites(t, cells)
}

// checkPlacement: c's database ran on cores of its own, apart from the
// server's and the generator's; where the generator had to share the
// server's instead (pinning together), the cell says so.
func checkPlacement(t *testing.T, c *results.Cell) {
	t.Helper()
	db, _ := cpuset.Parse(c.ServiceCPUSets["db"])
	server, _ := cpuset.Parse(c.ServiceCPUSets["server"])
	lg, _ := cpuset.Parse(c.LoadgenCPUSet)
	switch {
	case len(db) != 1 || c.ServiceCPUSets["server"] != c.CPUSet || cpuset.Overlaps(db, server) || cpuset.Overlaps(db, lg):
		t.Errorf("%s: services on %v, the generator on %s: want the database on a core of its own", c.ID(), c.ServiceCPUSets, c.LoadgenCPUSet)
	case (c.Pinning == "together") != (c.Placement != "") || c.Pinning == "together" && c.LoadgenCPUSet != c.CPUSet:
		t.Errorf("%s: pinning %q, generator on %s, placement %q: want the generator on the server's core said where it shares it", c.ID(), c.Pinning, c.LoadgenCPUSet, c.Placement)
	}
}

// checkWrites: go-pgx's updates cells record rows of World changed in the
// database; db-faulty's, whose answers pass every rule an answer can be
// held to, fail verification by the rows-written rule: the database counts
// the selects its probes asked for and no row written. (The written rule,
// World compared before and after the trials, is what stops a server that
// writes while verified and not under load; TestWriteWatch holds it.)
func checkWrites(t *testing.T, cells map[string]*results.Cell) {
	t.Helper()
	for _, q := range []string{"501"} {
		if c := cells["db-go-pgx/updates?queries="+q+"/1cpu/c16"]; c != nil {
			t.Logf("db-go-pgx/updates?queries=%s: %s, writes %+v", q, c.Status, c.Writes)
			if w := c.Writes; w == nil || w.Method != results.WritesWorldDiff || w.Answered <= 0 || w.RowsChanged <= 0 {
				t.Errorf("db-go-pgx/updates?queries=%s: writes %+v, want rows changed by the updates answered", q, w)
			}
		}
		c := cells["db-faulty/updates?queries="+q+"/1cpu/c16"]
		if c == nil {
			t.Errorf("db-faulty/updates?queries=%s: no such cell", q)
			continue
		}
		if c.Status != results.Failed || !strings.Contains(c.Reason, string(verify.RuleRowsWritten)+": updates: the database wrote 0 rows of World for 7 requests") {
			t.Errorf("db-faulty/updates?queries=%s: %s (%q), want failed by the %s rule", q, c.Status, c.Reason, verify.RuleRowsWritten)
			continue
		}
		if n := c.DBCounts; n == nil || len(n.Verify) != 1 || n.Verify[0].Selects < n.Verify[0].Asked || n.Verify[0].RowsWritten != 0 {
			t.Errorf("db-faulty/updates?queries=%s: counts %+v, want the selects asked and no row written", q, n)
		}
	}
}
