package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// --loadgen-engine and placement.loadgen name one generator engine or
// several: the first is the load generator's, the rest are further ones,
// a generator on the targets' engine takes its name, and the targets'
// machine needs an address once any generator is elsewhere.
func TestSeveralGeneratorEngines(t *testing.T) {
	m := &matrix.Matrix{
		Engines: map[string]matrix.EngineSpec{
			"server":  {Name: "server", Host: "ssh://bench@10.0.0.5", Address: "10.0.0.5"},
			"client1": {Name: "client1", Host: "ssh://bench@10.0.0.6", Address: "10.0.0.6"},
			"client2": {Name: "client2", Host: "ssh://bench@10.0.0.7", Address: "10.0.0.7"},
		},
		Placement: &matrix.Placement{Target: "server", Loadgens: []string{"client1", "client2"}, Link: "10 GbE"},
	}
	p, err := (&engineFlags{}).placement(m)
	if err != nil {
		t.Fatal(err)
	}
	ms := p.machines
	if ms == nil || ms.Target.Name != "server" || ms.Loadgen.Name != "client1" || len(ms.More) != 1 || ms.More[0].Name != "client2" || ms.Link != "10 GbE" {
		t.Fatalf("from the matrix: %+v", ms)
	}

	// The flag: the environment's engine and one by URL, the targets on
	// the environment's engine too.
	ef := &engineFlags{loadgen: "default, tcp://10.231.7.2:2375", address: "10.231.7.1"}
	if p, err = ef.placement(&matrix.Matrix{}); err != nil {
		t.Fatal(err)
	}
	ms = p.machines
	if ms == nil || ms.Target.Name != "default" || ms.Target.Address != "10.231.7.1" || ms.Loadgen.Name != "default" ||
		len(ms.More) != 1 || ms.More[0].Name != "loadgen2" || ms.More[0].Host != "tcp://10.231.7.2:2375" {
		t.Fatalf("from the flag: %+v", ms)
	}

	if _, err := (&engineFlags{loadgen: "default,tcp://10.231.7.2:2375"}).placement(&matrix.Matrix{}); err == nil ||
		!strings.Contains(err.Error(), "the load generator on engine loadgen2 is not on the targets' engine default (default): say where it reaches the targets' machine with --target-address") {
		t.Errorf("no address: %v", err)
	}
	for _, c := range []struct {
		flags engineFlags
		want  string
	}{
		{engineFlags{loadgen: "client1,client1"}, "--loadgen-engine: engines client1 and client1 are one engine (ssh://bench@10.0.0.6)"},
		{engineFlags{loadgen: "client1,,client2"}, `--loadgen-engine "client1,,client2": engine 2 of 3 is empty`},
		{engineFlags{loadgen: "client1,http://x"}, `--loadgen-engine: unsupported scheme "http"`},
	} {
		if _, err := c.flags.placement(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.flags, err, c.want)
		}
	}

	// One generator: as before, a URL named loadgen.
	if p, err = (&engineFlags{loadgen: "tcp://10.231.7.2:2375", address: "10.231.7.1"}).placement(&matrix.Matrix{}); err != nil {
		t.Fatal(err)
	}
	if ms = p.machines; ms == nil || ms.Loadgen.Name != "loadgen" || len(ms.More) != 0 {
		t.Errorf("one generator: %+v", ms)
	}
}

// fakeEngine is a Docker engine on a unix socket that answers the ping
// every dial makes and fails every other call: a run on it gets past
// connecting and fails at its first real request, without Docker.
func fakeEngine(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/_ping") {
			w.Header().Set("Api-Version", "1.45")
			fmt.Fprint(w, "OK")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"message":"fake engine: refused"}`)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return "unix://" + sock
}

// A two-engine run that fails after claiming its results folder releases
// the claim on the way out: it left OUT/.run.lock, in a folder holding
// nothing else.
func TestFailedRunReleasesFolder(t *testing.T) {
	path := writeMatrix(t, small)
	out := filepath.Join(t.TempDir(), "results", "x")
	code, _, stderr := runMain("run", "-f", path, "--target-engine", fakeEngine(t), "--loadgen-engine", fakeEngine(t),
		"--target-address", "127.0.0.1", "--label", "x", "--out", out)
	if code == ExitOK {
		t.Fatalf("a run on engines that refuse everything passed: %s", stderr)
	}
	if !strings.Contains(stderr, "fake engine: refused") {
		t.Errorf("the run did not fail at the engine's refusal: %s", stderr)
	}
	if _, err := os.Lstat(filepath.Join(out, ".run.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s/.run.lock is left after the failed run (%v): %s", out, err, stderr)
	}
}

// An engine flag's value that is neither an engines key nor a docker
// context is named as such, with the keys and the matrix file: a mistyped
// key read as a context and asked for --target-address.
func TestUnknownEngineKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	m := &matrix.Matrix{File: "m.yaml", Engines: map[string]matrix.EngineSpec{
		"server":  {Name: "server", Host: "ssh://bench@10.0.0.5", Address: "10.0.0.5"},
		"client1": {Name: "client1", Host: "ssh://bench@10.0.0.6", Address: "10.0.0.6"},
	}}
	for _, ef := range []engineFlags{{loadgen: "nosuchkey"}, {loadgen: "client1,nosuchkey"}, {target: "nosuchkey", loadgen: "client1"}} {
		_, err := ef.placement(m)
		flagName := "--loadgen-engine"
		if ef.target != "" {
			flagName = "--target-engine"
		}
		if want := flagName + " nosuchkey: not an engines key of m.yaml (its keys: client1, server), nor a docker context"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", ef, err, want)
		}
	}
	// A context of that name is an engine.
	sum := sha256.Sum256([]byte("bench"))
	meta := filepath.Join(dir, "contexts", "meta", hex.EncodeToString(sum[:]))
	os.MkdirAll(meta, 0o755)
	os.WriteFile(filepath.Join(meta, "meta.json"), []byte(`{"Name":"bench","Endpoints":{"docker":{"Host":"ssh://bench@10.0.0.7"}}}`), 0o644)
	if p, err := (&engineFlags{loadgen: "bench", target: "server"}).placement(m); err != nil || p.machines == nil || p.machines.Loadgen.Name != "bench" {
		t.Errorf("a docker context: %+v, %v", p.machines, err)
	}

	path := writeMatrix(t, small)
	code, _, stderr := runMain("plan", "-f", path, "--loadgen-engine", "nosuchkey")
	if want := "--loadgen-engine nosuchkey: not an engines key of " + path + " (it has no engines: section)"; code != ExitUsage || !strings.Contains(stderr, want) || strings.Contains(stderr, "--target-address") {
		t.Errorf("plan: exit %d, %q, want %q", code, stderr, want)
	}
}
