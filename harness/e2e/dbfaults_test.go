package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// databaseFaults is four broken database targets (a healthy one is
// TestDatabase's go-pgx, the same images), all the real PostgreSQL of targets/database/postgres and the real go-pgx
// server, each broken through its environment only:
//   - dbf-nostart: the database will not start: an empty superuser
//     password, which the image's entrypoint refuses (the official one
//     too);
//   - dbf-password: the target's environment gives the server a wrong
//     password (the database asks for it even from 127.0.0.1);
//   - dbf-seed: the seed fails: libpq's PGOPTIONS, which the entrypoint's
//     psql reads, leaves the seed's CREATE TABLE no schema to create in;
//   - dbf-killed: the test kills the database while a trial of one of
//     its two cells runs; its other cell runs on a fresh database.
var databaseFaults = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26-bookworm, postgres: postgres:17-bookworm}
load: {duration: 3s, warmup: 0, trials: 1, timeout: 2s, ready_timeout: 90s}
cpus: [1]
connections: [16]
targets:
` + databaseTarget("dbf-nostart", `env: {POSTGRES_PASSWORD: ""}`, "", "db") +
	databaseTarget("dbf-password", "", "env: {DB_PASSWORD: not-the-password}", "db") +
	databaseTarget("dbf-seed", `env: {PGOPTIONS: "-c search_path=nowhere"}`, "", "db") +
	databaseTarget("dbf-killed", "", "", "db, fortunes") + `scenarios:
  db:
    path: /db
    expect: {status: 200, content_type: application/json, tfb: {test: db}}
  fortunes:
    path: /fortunes
    expect: {status: 200, content_type: text/html, tfb: {test: fortunes}}
`

// databaseTarget is the matrix entry of target name: the real postgres,
// with dbKeys added to its db service's, and go-pgx, with keys added to
// the target's, for scenarios.
func databaseTarget(name, dbKeys, keys, scenarios string) string {
	if dbKeys != "" {
		dbKeys = ", " + dbKeys
	}
	if keys != "" {
		keys = "\n    " + keys
	}
	return fmt.Sprintf(`  %s:
    services:
      db: {build: ROOT/targets/database/postgres, port: 5432, cpus: 1%s}
      server: {build: ROOT/targets/database/go-pgx}
    entry: server
    port: 8080
    scenarios: [%s]%s
`, name, dbKeys, scenarios, keys)
}

// TestDatabaseFaults: in one run, each fault of a database target fails
// its own cell alone, the reason naming the database service (db-1) and
// holding the database's last log lines, which say what went wrong; the
// killed target's other cell is measured; nothing
// is left on the engine, the killed database's volumes included.
func TestDatabaseFaults(t *testing.T) {
	eng := connect(t)
	ctx := context.Background()
	file := writeRooted(t, databaseFaults)
	out := t.TempDir()
	kctx, stop := context.WithCancel(ctx)
	killed := make(chan [2]string, 1)
	go func() {
		cell, why := killDatabaseUnderTrial(kctx, "dbf-killed", "bombardier ")
		killed <- [2]string{cell, why}
	}()
	volumes := watchVolumes(kctx, "db")
	code, _ := runCLI(ctx, t, "run", "-f", file, "--out", out, "--no-ceiling")
	stop()
	noLeftovers(t, eng)
	noVolumesLeft(t, <-volumes)
	kill := <-killed
	if kill[1] != "" {
		t.Fatalf("the database of dbf-killed was not killed under a trial: %s", kill[1])
	}
	run, err := results.Read(out)
	if code != cli.ExitFailed || err != nil {
		t.Fatalf("exit %d (want %d: the faults' cells failed), %v", code, cli.ExitFailed, err)
	}
	cells := map[string]*results.Cell{}
	for _, c := range run.Cells {
		cells[strings.Replace(c.ID(), "/together", "", 1)] = c // on a 2-core machine the generator shares the server's core
	}
	checkDatabaseFaults(t, cells, strings.Replace(kill[0], "/together", "", 1))
}

// checkDatabaseFaults: the killed target's other cell is ok; each fault's cell failed,
// naming service db-1 and what its log says. killed is the cell whose
// database the test killed.
func checkDatabaseFaults(t *testing.T, cells map[string]*results.Cell, killed string) {
	t.Helper()
	other := "dbf-killed/fortunes/1cpu/c16"
	if killed == other {
		other = "dbf-killed/db/1cpu/c16"
	}
	if c := cells[other]; c == nil || c.Status != results.OK || c.Summary == nil || c.Summary.RPS <= 0 {
		t.Errorf("%s = %+v, want ok with rps", other, c)
	}
	for id, want := range map[string][]string{
		// The stand-in's words and the official image's both name it.
		"dbf-nostart/db/1cpu/c16": {"service db-1 exited with code ", " before answering; last log lines:", "POSTGRES_PASSWORD"},
		"dbf-password/db/1cpu/c16": {"verify http://", "status 500, want 200", "the database, service db-1, is running; its last log lines:",
			`password authentication failed for user "benchmarkdbuser"`},
		"dbf-seed/db/1cpu/c16": {"service db-1 exited with code ", " before answering; last log lines:", "create-postgres.sql",
			"no schema has been selected to create in"},
		killed: {"service db-1 exited with code 137 during the trial; last log lines:", "database system is ready to accept connections", "of requests failed"},
	} {
		c := cells[id]
		if c == nil || c.Status != results.Failed {
			t.Errorf("%s = %+v, want failed", id, c)
			continue
		}
		t.Logf("%s: %s", id, c.Reason)
		for _, w := range want {
			if !strings.Contains(c.Reason, w) {
				t.Errorf("%s: reason %q: want %q in it", id, c.Reason, w)
			}
		}
		if (id == killed) != (c.Why == results.WhyTargetStopped) {
			t.Errorf("%s: why %q: want %q for the killed database alone", id, c.Why, results.WhyTargetStopped)
		}
	}
}

// dockerCLI runs the docker command against the engine at host ("": the
// default one) and returns its output, trimmed.
func dockerCLI(ctx context.Context, host string, args ...string) (string, error) {
	if host != "" {
		args = append([]string{"-H", host}, args...)
	}
	out, err := exec.CommandContext(ctx, "docker", args...).Output()
	return strings.TrimSpace(string(out)), err
}

// ownLabel is the filter of what this test process's runs made.
func ownLabel() string { return "label=" + engine.LabelPID + "=" + strconv.Itoa(os.Getpid()) }

// generatorRuns is the run's load generator container on the engine at
// host, and whether it runs a process whose command starts with tool (the
// tool itself, past the start script's wait: read from /proc in the
// container, whose image has no ps); seen says what it found.
func generatorRuns(ctx context.Context, host, tool string) (id string, runs bool, seen string) {
	id, err := dockerCLI(ctx, host, "ps", "-q", "--filter", ownLabel(), "--filter", "label="+engine.LabelRole+"=loadgen")
	if err != nil || id == "" {
		return "", false, "no container"
	}
	procs, err := dockerCLI(ctx, host, "exec", id, "sh", "-c", `for f in /proc/[0-9]*/cmdline; do tr '\000' ' ' < "$f"; echo; done`)
	seen = fmt.Sprintf("container %s running %q (%v)", id, procs, err)
	return id, err == nil && strings.Contains("\n"+procs, "\n"+tool), seen
}

// killDatabaseUnderTrial waits for target's db container (found by the
// harness's labels) to run while the load generator runs tool, which is
// then measuring that target (one visit runs at a time), lets the trial
// run a second and kills the database. It returns the cell it was killed
// in, and why it did not kill it, "" when it did.
func killDatabaseUnderTrial(ctx context.Context, target, tool string) (cell, why string) {
	seen := "no container"
	for ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		db, err := dockerCLI(ctx, "", "ps", "-q", "--filter", ownLabel(), "--filter", "label="+engine.LabelTarget+"="+target,
			"--filter", "label="+engine.LabelService+"=db")
		if err != nil || db == "" {
			continue
		}
		var runs bool
		if _, runs, seen = generatorRuns(ctx, "", tool); !runs {
			continue
		}
		time.Sleep(time.Second)
		in, err := dockerCLI(ctx, "", "inspect", "-f", `{{index .Config.Labels "`+engine.LabelCell+`"}}`, db)
		if err != nil {
			return "", "docker inspect: " + err.Error()
		}
		if _, err := dockerCLI(ctx, "", "kill", db); err != nil {
			return "", "docker kill: " + err.Error()
		}
		return in, ""
	}
	return "", "the run ended first; last seen: " + seen
}

// watchVolumes collects, until ctx ends, the volumes mounted into this
// process's containers of service (the official postgres image declares
// one for its data; the stand-in none), and sends them when ctx ends.
func watchVolumes(ctx context.Context, service string) <-chan []string {
	out := make(chan []string, 1)
	go func() {
		seen, vols := map[string]bool{}, []string{}
		for ctx.Err() == nil {
			time.Sleep(200 * time.Millisecond)
			ids, _ := dockerCLI(ctx, "", "ps", "-aq", "--filter", ownLabel(), "--filter", "label="+engine.LabelService+"="+service)
			for _, id := range strings.Fields(ids) {
				if seen[id] {
					continue
				}
				names, err := dockerCLI(ctx, "", "inspect", "-f", `{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}`, id)
				if err == nil { // else removed already: one that failed fast may be missed
					seen[id] = true
					vols = append(vols, strings.Fields(names)...)
				}
			}
		}
		out <- vols
	}()
	return out
}

// noVolumesLeft fails the test if any of vols is still on the engine.
func noVolumesLeft(t *testing.T, vols []string) {
	t.Helper()
	t.Logf("%d volumes of the databases' containers seen", len(vols))
	for _, v := range vols {
		if _, err := dockerCLI(context.Background(), "", "volume", "inspect", v); err == nil {
			t.Errorf("volume %s left behind", v)
		}
	}
}
