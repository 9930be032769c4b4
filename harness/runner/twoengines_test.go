package runner

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

func twoMachines() *Machines {
	return &Machines{
		Target:  matrix.EngineSpec{Name: "server", Host: "ssh://bench@10.0.0.5", Address: "10.0.0.5", Reserve: 1},
		Loadgen: matrix.EngineSpec{Name: "client", Host: "unix:///var/run/docker.sock"},
		Link:    "veth pair",
	}
}

// With two engines, targets and their ceiling server run on the targets'
// engine with host networking on its cores (after the reserved one), the
// load generator on its own machine reaches them at the address, and both
// machines are recorded; nothing is left on either engine. (How the
// container generator builds its image there and copies it to the
// targets' engine is TestServerImageCopied's.)
func TestTwoEngines(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	srv, cli := newFake(), newFake()
	srv.id, cli.id = "server-engine", "client-engine"
	srv.ncpu, cli.ncpu = 3, 2
	res, err, _ := run(t, srv, m, Options{Machines: twoMachines(), LoadgenEngine: cli.engine()})
	if left := cli.live(); len(left) > 0 {
		t.Errorf("left on the load generator's engine: %v", left)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != results.OK {
			t.Errorf("%s: %s %s", c.ID(), c.Status, c.Reason)
		}
		if c.CPUSet != "1" || c.LoadgenCPUSet != "1" {
			t.Errorf("%s: target cores %q (want 1: core 0 is reserved), load generator %q (want 1, the highest of its machine)", c.ID(), c.CPUSet, c.LoadgenCPUSet)
		}
	}
	for _, c := range srv.callsWith("start ") {
		if strings.HasSuffix(c, "-loadgen") {
			t.Errorf("the load generator started on the targets' engine: %s", c)
		}
	}
	if got := cli.callsWith("start "); len(got) != 0 {
		t.Errorf("the load generator's engine started %v, want nothing (the generator is in-process)", got)
	}
	for _, r := range srv.gen.ran() {
		if !strings.HasPrefix(r.spec.URL, "http://10.0.0.5:8080/") {
			t.Errorf("run at %q does not reach the targets' machine at its address", r.spec.URL)
		}
	}
	if srv.served["a"] == 0 || srv.served["b"] == 0 || srv.served["ceiling"] == 0 {
		t.Errorf("served %v: want every target and the ceiling's server loaded", srv.served)
	}
	env := res.Environment
	if env.NetworkMode != results.NetworkHost || env.Hostname != "server-engine-host" || env.Link != "veth pair" {
		t.Errorf("environment: network %s, hostname %s, link %q", env.NetworkMode, env.Hostname, env.Link)
	}
	tg, ok1 := env.Machine(results.RoleTarget)
	lg, ok2 := env.Machine(results.RoleLoadgen)
	if !ok1 || !ok2 || tg.Engine != "server" || tg.OnlineCPUs != 3 || tg.Reserved != 1 || tg.Address != "10.0.0.5" ||
		lg.Engine != "client" || lg.OnlineCPUs != 2 || lg.Hostname != "client-engine-host" {
		t.Errorf("machines %+v", env.Machines)
	}
	for _, c := range srv.containerSpecs() {
		if c.Network != "host" {
			t.Errorf("container %s on network %q, want host", c.Name, c.Network)
		}
	}
}

// A load generator that cannot reach the targets' machine stops the run
// before any load, naming both ends.
func TestTwoEnginesUnreachable(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	srv, cli := newFake(), newFake()
	srv.id, cli.id = "server-engine", "client-engine"
	srv.unreachable = map[string]bool{"10.0.0.5": true}
	m.Load.ReadyTimeout = 300 * time.Millisecond
	res, err, _ := run(t, srv, m, Options{Machines: twoMachines(), LoadgenEngine: cli.engine()})
	if left := cli.live(); len(left) > 0 {
		t.Errorf("left on the load generator's engine: %v", left)
	}
	for _, w := range []string{"engine client (unix:///var/run/docker.sock)", "engine server (ssh://bench@10.0.0.5)", "http://10.0.0.5:8080/", "connection refused"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not say %q", err, w)
		}
	}
	if res == nil || res.Stopped == "" || len(srv.loads())+len(cli.loads()) > 0 {
		t.Errorf("want a stopped run with no load, got %+v", res)
	}
}

// The same engine under two names is refused: its cores would be locked
// twice by one run.
func TestTwoEnginesSameEngine(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	srv, cli := newFake(), newFake()
	_, err, _ := run(t, srv, m, Options{Machines: twoMachines(), LoadgenEngine: cli.engine()})
	var same *SameEngineError
	if !errors.As(err, &same) || same.Names != [2]string{"server", "client"} {
		t.Errorf("err = %v", err)
	}
}

// An engine lost during the run stops it with an error naming the engine.
func TestTwoEnginesLost(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	srv, cli := newFake(), newFake()
	srv.id, cli.id = "server-engine", "client-engine"
	// The first target's container dies with its engine, failing the visit.
	srv.targets["a"] = &fakeTarget{dieOnRun: 1}
	srv.lost, srv.lostAfter = true, srv.pings
	_, err, _ := run(t, srv, m, Options{Machines: twoMachines(), LoadgenEngine: cli.engine()})
	if err == nil || !strings.Contains(err.Error(), "engine server-engine lost") {
		t.Errorf("err = %v, want the lost engine named", err)
	}
}

// Reserving every core of the targets' machine skips every cell with the
// reason; the run neither reaches for nor measures anything.
func TestTwoEnginesAllReserved(t *testing.T) {
	m := testMatrix(t, twoTargets, "one", "a", "b")
	srv, cli := newFake(), newFake()
	srv.id, cli.id = "server-engine", "client-engine"
	mc := twoMachines()
	mc.Target.Reserve = srv.ncpu
	res, err, _ := run(t, srv, m, Options{Machines: mc, LoadgenEngine: cli.engine()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Status != results.Skipped || !strings.Contains(c.Reason, "target's machine") {
			t.Errorf("%s: %s %q, want skipped for the target's machine", c.ID(), c.Status, c.Reason)
		}
	}
	if n := len(cli.callsWith("probe ")) + len(cli.callsWith("start ")); n > 0 {
		t.Errorf("%d probes or starts on the load generator's engine with nothing to run", n)
	}
}
