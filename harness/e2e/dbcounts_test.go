package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
	"github.com/webbench/webbench/harness/verify"
)

// dbCounts is TFB's database tests over the real PostgreSQL of
// targets/database/postgres, which loads pg_stat_statements: go-pgx, an
// honest server, at TFB's headline queries=20, and the two db-cheat
// variants (testdata/db-cheat) whose queries answers are right in shape
// and cost the database what TFB forbids: cached-queries answers from
// World read once at start, in-select reads a request's rows in one
// select.
const dbCounts = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm, postgres: postgres:17-bookworm}
load: {duration: 2s, warmup: 0, trials: 2, timeout: 30s, ready_timeout: 90s}
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
  db-cheat:
    services:
      db: {build: ROOT/targets/database/postgres, port: 5432, cpus: 1}
      server: {build: ROOT/harness/e2e/testdata/db-cheat}
    entry: server
    port: 8080
    scenarios: [queries]
    variants:
      cached-queries: {env: {CHEAT: cached-queries}}
      in-select: {env: {CHEAT: in-select}}
scenarios:
  db:
    path: /db
    expect: {status: 200, content_type: application/json, tfb: {test: db}}
  queries:
    path: /queries?queries={queries}
    params: {queries: ["20"]}
    expect: {status: 200, content_type: application/json, tfb: {test: queries, queries: "{queries}"}}
  fortunes:
    path: /fortunes
    expect: {status: 200, content_type: text/html, tfb: {test: fortunes}}
  updates:
    path: /updates?queries={queries}
    params: {queries: ["20"]}
    expect: {status: 200, content_type: application/json, tfb: {test: updates, queries: "{queries}"}}
`

// TestDatabaseCounts: what each request cost the database, counted in
// pg_stat_statements, holds the cheaters to TFB's rules and lets the
// honest server pass. The server that answers queries from memory and the
// one that reads a request's 20 rows in one select (IN) both fail
// verification by the selects rule, the reason giving the counts seen (7
// probes asked for 545 selects: twice 20, and 2, 1, 1, 500 and 1); the
// IN select reads every row it answers, so the rows-read rule passes it:
// calls are counted, not rows. go-pgx's cells are ok, each recording what
// its verification and each trial cost per request, with no warning.
func TestDatabaseCounts(t *testing.T) {
	eng := connect(t)
	out := t.TempDir()
	code, _ := runCLI(context.Background(), t, "run", "-f", writeRooted(t, dbCounts), "--out", out, "--no-ceiling")
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d: the cheaters' cells fail", code, cli.ExitFailed)
	}
	noLeftovers(t, eng)
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]*results.Cell{}
	for id, c := range cellsByID(run) {
		cells[strings.Replace(id, "/together", "", 1)] = c // on a 2-core machine the generator shares the server's core
	}
	for id, want := range map[string]string{
		"db-cheat:cached-queries/queries?queries=20/1cpu/c16": "selects: queries: the database served 0 selects of World for 7 requests that asked for 545",
		"db-cheat:in-select/queries?queries=20/1cpu/c16":      "selects: queries: the database served 7 selects of World for 7 requests that asked for 545",
	} {
		c := cells[id]
		if c == nil || c.Status != results.Failed || !strings.Contains(c.Reason, want) {
			t.Errorf("%s = %+v, want failed by %q", id, c, want)
			continue
		}
		t.Logf("%s: %s", id, c.Reason)
		if strings.Contains(id, "in-select") && strings.Contains(c.Reason, string(verify.RuleRowsRead)) {
			t.Errorf("%s: %q: the IN select read every row it answered, want the rows-read rule kept", id, c.Reason)
		}
	}
	for _, id := range []string{"db-go-pgx/db/1cpu/c16", "db-go-pgx/fortunes/1cpu/c16",
		"db-go-pgx/queries?queries=20/1cpu/c16", "db-go-pgx/updates?queries=20/1cpu/c16"} {
		checkHonestCounts(t, id, cells[id])
	}
}

// checkHonestCounts: the cell id of an honest server is ok and records
// the database's counts of its verification and of each trial, all within
// TFB's rules, and no warning of them.
func checkHonestCounts(t *testing.T, id string, c *results.Cell) {
	t.Helper()
	if c == nil || c.Status != results.OK {
		t.Errorf("%s = %+v, want ok", id, c)
		return
	}
	test := strings.SplitN(id, "/", 3)[1]
	test, _, _ = strings.Cut(test, "?")
	n := c.DBCounts
	if n == nil || n.Method != results.DBCountsStatStatements || n.Table != verify.Table(test) || len(n.Verify) == 0 || len(n.Trials) != len(c.Trials) {
		t.Errorf("%s: counts %+v, want each visit's verification's and each of its %d trials'", id, n, len(c.Trials))
		return
	}
	t.Logf("%s: verifications %+v, trials %+v", id, n.Verify, n.Trials)
	for _, v := range n.Verify {
		if p := verify.CheckServed(test, v, 0); len(p) > 0 || v.Requests != 2 && v.Requests != 7 {
			t.Errorf("%s: a verification's counts %+v: want its 2 or 7 requests, within the rules (%v)", id, v, p)
		}
	}
	for i, tc := range n.Trials {
		if tc.Trial != i || tc.Requests != c.Trials[i].Requests || tc.Requests <= 0 || tc.SelectsPerRequest < float64(n.PerRequest) {
			t.Errorf("%s: trial %d counted %+v, want its %d requests with %d selects each", id, i, tc, c.Trials[i].Requests, n.PerRequest)
		}
		if test == "updates" && tc.RowsWrittenPerRequest < float64(n.PerRequest) {
			t.Errorf("%s: trial %d wrote %.3f rows a request, want %d (go-pgx writes each row in a statement of its own)", id, i, tc.RowsWrittenPerRequest, n.PerRequest)
		}
	}
	for _, w := range c.Warnings {
		for _, r := range []verify.Rule{verify.RuleSelects, verify.RuleRowsRead, verify.RuleRowsWritten} {
			if strings.Contains(w, string(r)+": ") {
				t.Errorf("%s: warning %q, want none of the database's counts", id, w)
			}
		}
	}
}
