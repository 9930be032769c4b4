package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/results"
)

// cheaters is a matrix of the db-cheat test server (testdata/db-cheat): it
// answers TFB's db test in the right shape from rows it made up, and each
// variant breaks one of TFB's header rules.
const cheaters = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm}
load: {duration: 1s, warmup: 0, trials: 1, timeout: 5s, ready_timeout: 30s}
cpus: [1]
connections: [8]
targets:
  db-cheat:
    build: ROOT/harness/e2e/testdata/db-cheat
    port: 8080
    variants:
      no-server: {env: {CHEAT: no-server}}
      static-date: {env: {CHEAT: static-date}}
scenarios:
  db:
    path: /db
    expect: {status: 200, content_type: application/json, tfb: {test: db}}
`

// A server that skips a header TFB requires, or sends one Date for ever,
// never ranks: its cell fails verification, the reason naming the rule it
// broke (server, date-cached), on the real engine.
func TestCheatersFail(t *testing.T) {
	connect(t)
	out := t.TempDir()
	code, _ := runCLI(context.Background(), t, "run", "-f", writeRooted(t, cheaters), "--out", out, "--no-ceiling")
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d: the cheaters' cells fail", code, cli.ExitFailed)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"db-cheat:no-server/db/1cpu/c8": "server: ", "db-cheat:static-date/db/1cpu/c8": "date-cached: "}
	for _, c := range run.Cells {
		rule, ok := want[c.ID()]
		if !ok {
			t.Errorf("an unexpected cell %s", c.ID())
			continue
		}
		delete(want, c.ID())
		if c.Status != results.Failed || !strings.Contains(c.Reason, rule) {
			t.Errorf("%s: %s %q, want failed by the rule %q", c.ID(), c.Status, c.Reason, strings.TrimSuffix(rule, ": "))
		}
	}
	for id := range want {
		t.Errorf("no cell %s", id)
	}
}
