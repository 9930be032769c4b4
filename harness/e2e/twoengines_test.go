package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// secondEngine is a second Docker engine on this machine, in a network
// namespace of its own joined to the host's by a veth pair: as far as the
// network goes, another machine at Addr whose engine listens on Host.
type secondEngine struct {
	Host, Addr, HostAddr string
	netns                string
}

// startSecondEngine starts a second dockerd inside a new network namespace
// (the recipe of the README's "Two machines" section), with the first
// engine's storage driver, and tears the engine, its mounts, the veth pair
// and the namespace down when the test ends, failed or not.
func startSecondEngine(t *testing.T, first *engine.Engine) *secondEngine {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	for _, tool := range []string{"ip", "nsenter", "dockerd"} {
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
	info, err := first.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := os.Getpid()%200 + 20
	e := &secondEngine{netns: fmt.Sprintf("wbe2e%d", n), HostAddr: fmt.Sprintf("10.231.%d.1", n), Addr: fmt.Sprintf("10.231.%d.2", n)}
	e.Host = "tcp://" + e.Addr + ":2375"
	vethHost, vethNS := fmt.Sprintf("wbh%d", n), fmt.Sprintf("wbn%d", n)
	dir, err := os.MkdirTemp("", "webbench-engine2-")
	if err != nil {
		t.Fatal(err)
	}
	sh := func(args ...string) error {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	var daemon *exec.Cmd
	t.Cleanup(func() {
		if daemon != nil && daemon.Process != nil {
			daemon.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { daemon.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("second engine did not stop on SIGTERM; killing it")
				syscall.Kill(-daemon.Process.Pid, syscall.SIGKILL)
				<-done
			}
		}
		// What the engine mounted under its folders (overlay layers, its
		// netns files) goes before the folders do.
		if data, err := os.ReadFile("/proc/self/mounts"); err == nil {
			var points []string
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
					points = append(points, f[1])
				}
			}
			for i := len(points) - 1; i >= 0; i-- {
				if err := syscall.Unmount(points[i], syscall.MNT_DETACH); err != nil {
					t.Errorf("unmount %s: %v", points[i], err)
				}
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("remove %s: %v", dir, err)
		}
		sh("ip", "link", "del", vethHost) // takes its peer along
		if err := sh("ip", "netns", "del", e.netns); err != nil && !strings.Contains(err.Error(), "No such file") {
			t.Errorf("%v", err)
		}
	})
	for _, step := range [][]string{
		{"ip", "netns", "add", e.netns},
		{"ip", "link", "add", vethHost, "type", "veth", "peer", "name", vethNS},
		{"ip", "link", "set", vethNS, "netns", e.netns},
		{"ip", "addr", "add", e.HostAddr + "/24", "dev", vethHost},
		{"ip", "link", "set", vethHost, "up"},
		{"nsenter", "--net=/var/run/netns/" + e.netns, "ip", "addr", "add", e.Addr + "/24", "dev", vethNS},
		{"nsenter", "--net=/var/run/netns/" + e.netns, "ip", "link", "set", vethNS, "up"},
		{"nsenter", "--net=/var/run/netns/" + e.netns, "ip", "link", "set", "lo", "up"},
	} {
		if err := sh(step...); err != nil {
			t.Fatal(err)
		}
	}
	// An empty config file: the host's daemon.json sets data-root, which
	// the flags set here too.
	if err := os.WriteFile(filepath.Join(dir, "daemon.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(t.TempDir(), "dockerd.log"))
	if err != nil {
		t.Fatal(err)
	}
	daemon = exec.Command("nsenter", "--net=/var/run/netns/"+e.netns, "dockerd",
		"--config-file", filepath.Join(dir, "daemon.json"),
		"--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"), "--pidfile", filepath.Join(dir, "dockerd.pid"),
		"-H", "unix://"+filepath.Join(dir, "docker.sock"), "-H", e.Host, "--tls=false",
		"--bridge", "none", "--iptables=false", "--ip6tables=false", "--storage-driver", info.Driver)
	daemon.Stdout, daemon.Stderr = logf, logf
	daemon.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		eng, err := engine.Dial(ctx, "second", e.Host)
		cancel()
		if err == nil {
			eng.Close()
			return e
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("second engine not up after 90s: %v\n%s", err, log)
		}
		time.Sleep(time.Second)
	}
}

// The target runs on a second engine (another machine as far as the
// network goes) with host networking, the load generator on the main
// engine reaches it across the veth pair; both machines are recorded and
// nothing is left on either engine. A wrong address stops the run before
// any load, naming both ends.
func TestTwoEngines(t *testing.T) {
	eng := connect(t)
	second := startSecondEngine(t, eng)
	ctx := context.Background()
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	file := writeMatrix(t, "shared", "1s", "go-nethttp")
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
	for _, id := range []string{"go-nethttp/plaintext/1cpu/c16", "go-nethttp/json/1cpu/c16"} {
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

