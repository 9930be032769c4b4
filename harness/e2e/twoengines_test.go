package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// secondEngine is a second Docker engine on this machine, in a network
// namespace of its own joined to the host's by a veth pair: as far as the
// network goes, another machine at Addr whose engine listens on Host.
type secondEngine struct {
	Host, Addr string
}

// startSecondEngine starts a second dockerd inside a new network namespace
// with docker/engine2/netns-engine.sh (the README's recipe, with the first
// engine's storage driver), and has the script tear the engine, its mounts,
// the veth pair and the namespace down when the test ends, failed or not.
func startSecondEngine(t *testing.T) *secondEngine {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	for _, tool := range []string{"ip", "nsenter", "dockerd", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			if ci {
				t.Fatalf("CI=true and no %s: %v", tool, err)
			}
			t.Skipf("no %s: %v", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		if ci {
			t.Fatal("CI=true: a second engine needs root (network namespaces, dockerd)")
		}
		t.Skip("a second engine needs root")
	}
	n := strconv.Itoa(os.Getpid()%200 + 20)
	dir := filepath.Join(os.TempDir(), "webbench-engine2-"+n)
	script := filepath.Join(repoRoot(t), "docker", "engine2", "netns-engine.sh")
	t.Cleanup(func() {
		if out, err := exec.Command(script, "down", n, dir).CombinedOutput(); err != nil {
			t.Errorf("tearing the second engine down: %v: %s", err, out)
		}
		if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), "wbe2e"+n) {
			t.Errorf("namespace wbe2e%s left", n)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s left", dir)
		}
	})
	out, err := exec.Command(script, "up", n, dir).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("second engine: %v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	host := strings.TrimSpace(string(out))
	return &secondEngine{Host: host, Addr: strings.TrimSuffix(strings.TrimPrefix(host, "tcp://"), ":2375")}
}

// The target runs on a second engine (another machine as far as the
// network goes) with host networking, the load generator on the main
// engine reaches it across the veth pair; both machines are recorded and
// nothing is left on either engine. A wrong address stops the run before
// any load, naming both ends.
func TestTwoEngines(t *testing.T) {
	eng := connect(t)
	t.Parallel() // beside TestRunLeavesTestsGreen, whose run is another process
	second := startSecondEngine(t)
	ctx := context.Background()
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	file := writeMatrix(t, "shared", "0", "node-http") // warm-up is covered by TestRunLeavesTestsGreen (quick profile)
	out := t.TempDir()
	code, _ := runCLI(ctx, t, "run", "-f", file, "--out", out, "--label", "e2e-two",
		"--target-engine", second.Host, "--link", "veth pair between two network namespaces of one machine")
	noLeftovers(t, eng)
	noLeftovers(t, eng2)
	if code != cli.ExitOK {
		t.Fatalf("exit %d, want 0", code)
	}
	run, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	env := run.Environment
	tg, ok1 := env.Machine(results.RoleTarget)
	lg, ok2 := env.Machine(results.RoleLoadgen)
	if !ok1 || !ok2 || tg.Host != second.Host || tg.Address != second.Addr || tg.OnlineCPUs < 1 || tg.CPUModel == "" || tg.CPUModel == "unknown" ||
		lg.Engine != "default" || lg.OnlineCPUs < 1 || lg.DockerVersion == "" {
		t.Errorf("machines not recorded: %+v", env.Machines)
	}
	if env.NetworkMode != "host" || !strings.Contains(env.Link, "veth") {
		t.Errorf("network mode %q, link %q", env.NetworkMode, env.Link)
	}
	if len(run.Ceilings) == 0 || run.Ceilings[0].RPS <= 0 {
		t.Errorf("no ceiling measured across the engines: %+v", run.Ceilings)
	}
	cells := cellsByID(run)
	for _, id := range []string{"node-http/plaintext/1cpu/c16", "node-http/json/1cpu/c16"} {
		c := cells[id]
		if c == nil || c.Status != results.OK || len(c.Trials) != 2 || c.Trials[0].RPS <= 0 || c.Trials[0].TargetCPUCores <= 0 {
			t.Errorf("%s: %+v", id, c)
			continue
		}
		// Built on, and so run from, the second engine.
		if _, _, ok, err := eng2.ImageLabels(ctx, c.Image.ID); err != nil || !ok {
			t.Errorf("%s: image %s is not on the second engine (%v)", id, c.Image.ID, err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(readme), "Two machines: targets on engine `target`") {
		t.Errorf("README does not show the two machines (%v)", err)
	}

	// Nothing answers at a wrong address: the run stops before any load.
	bad := strings.TrimSuffix(second.Addr, ".2") + ".77"
	out2 := t.TempDir()
	quick := strings.Replace(readFile(t, file), "ready_timeout: 30s", "ready_timeout: 5s", 1)
	file2 := filepath.Join(t.TempDir(), "matrix.yaml")
	if err := os.WriteFile(file2, []byte(quick), 0o644); err != nil {
		t.Fatal(err)
	}
	code, text := runCLI(ctx, t, "run", "-f", file2, "--out", out2, "--target-engine", second.Host, "--target-address", bad)
	noLeftovers(t, eng)
	noLeftovers(t, eng2)
	if code == cli.ExitOK || !strings.Contains(text, "cannot reach the targets' machine, engine target ("+second.Host+"), at http://"+bad+":8080/") ||
		!strings.Contains(text, "the load generator on engine default") {
		t.Errorf("exit %d; want a failure naming both ends", code)
	}
	if run, err := results.Read(out2); err != nil || run.Stopped == "" || len(run.Cells) != 0 && run.Cells[0].Status == results.OK {
		t.Errorf("unreachable run: %v %+v", err, run)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
