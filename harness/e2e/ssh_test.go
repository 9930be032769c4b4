package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/cli"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/results"
)

// sshServer is an sshd in the second engine's namespace
// (docker/engine2/netns-sshd.sh), and what a client needs to reach it with
// the key the test made: the ssh:// URL, and an environment whose `ssh`
// (first on its PATH) uses that key and that pinned host key, and nothing
// of the user's (~/.ssh/config, known_hosts) or the user's Docker contexts
// (DOCKER_CONFIG).
type sshServer struct {
	URL string
	SSH string // the `ssh` first on Env's PATH
	Env []string
}

// startSSHServer starts sshd beside the second engine, with key-only
// logins for a key pair made here, and stops it, its sessions and its
// files when the test ends, failed or not.
func startSSHServer(t *testing.T, second *secondEngine) *sshServer {
	t.Helper()
	if why := sshMissing(); why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s", why)
		}
		t.Skip(why)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "webbench-e2e", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	script := filepath.Join(repoDir, "docker", "engine2", "netns-sshd.sh")
	served := filepath.Join(dir, "sshd")
	t.Cleanup(func() {
		if out, err := exec.Command(script, "down", engine2N, served).CombinedOutput(); err != nil {
			t.Errorf("stopping sshd: %v: %s", err, out)
		}
		if left := sshdLeft(); len(left) > 0 {
			t.Errorf("sshd processes left in namespace wbe2e%s: %v", engine2N, left)
		}
	})
	began := time.Now()
	out, err := exec.Command(script, "up", engine2N, engine2Dir, served, key+".pub").Output()
	if err != nil {
		t.Fatalf("sshd: %v: %s", err, stderrOf(err))
	}
	t.Logf("sshd up in %s", time.Since(began).Round(time.Millisecond))
	url := strings.TrimSpace(string(out))
	hostKey, err := os.ReadFile(filepath.Join(served, "ssh_host_ed25519_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(hostKey))
	if len(fields) < 2 {
		t.Fatalf("host key %q", hostKey)
	}
	known := filepath.Join(dir, "known_hosts")
	writeFile(t, known, second.Addr+" "+fields[0]+" "+fields[1]+"\n")
	// What a user's ~/.ssh/config says for a benchmark host; -F makes ssh
	// read this file instead of theirs and the system's.
	config := filepath.Join(dir, "ssh_config")
	writeFile(t, config, fmt.Sprintf(`Host %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  PasswordAuthentication no
  KbdInteractiveAuthentication no
  BatchMode yes
`, second.Addr, key, known))
	realSSH, err := exec.LookPath("ssh")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "ssh"), "#!/bin/sh\nexec "+realSSH+" -F "+config+` "$@"`+"\n")
	if err := os.Chmod(filepath.Join(bin, "ssh"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DOCKER_CONFIG="+filepath.Join(dir, "docker-config"))
	return &sshServer{URL: url, SSH: filepath.Join(bin, "ssh"), Env: slicesWithout(env, "DOCKER_HOST=", "DOCKER_CONTEXT=")}
}

// sshMissing says what this machine lacks to serve SSH beside the second
// engine ("" when nothing): netns-sshd.sh installs sshd when apt-get can.
func sshMissing() string {
	for _, tool := range []string{"ssh", "ssh-keygen", "docker"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "no " + tool + ": " + err.Error()
		}
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		if _, err := exec.LookPath("apt-get"); err != nil {
			return "no /usr/sbin/sshd (openssh-server) and no apt-get to install it"
		}
	}
	return ""
}

// sshdLeft lists the sshd processes in the second engine's namespace.
func sshdLeft() []string {
	out, _ := exec.Command("ip", "netns", "pids", "wbe2e"+engine2N).Output()
	var left []string
	for _, pid := range strings.Fields(string(out)) {
		if exe, _ := os.Readlink("/proc/" + pid + "/exe"); exe == "/usr/sbin/sshd" {
			left = append(left, pid)
		}
	}
	return left
}

// run runs name with args in the server's client environment and returns
// its output, failing the test on a non-zero exit.
func (s *sshServer) run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = s.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderrOf(err))
	}
	return strings.TrimSpace(string(out))
}

// harness runs the harness binary in the client environment, so that it
// reaches the engine through this `ssh` and these Docker contexts, and
// returns its exit code and pid (its containers' io.webbench.pid label).
func (s *sshServer) harness(ctx context.Context, t *testing.T, args ...string) (code, pid int) {
	t.Helper()
	cmd := exec.CommandContext(ctx, harnessBinary(t), args...)
	var out bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = s.Env, &out, &out
	began := time.Now()
	err := cmd.Run()
	t.Logf("harness %s → %v in %s\n%s", strings.Join(args, " "), err, time.Since(began).Round(time.Second), out.String())
	if cmd.ProcessState == nil {
		t.Fatalf("harness did not start: %v", err)
	}
	return cmd.ProcessState.ExitCode(), cmd.ProcessState.Pid()
}

// The targets' engine reached as Docker reaches a remote host: over SSH,
// with key-only logins and a pinned host key, the docker CLI's connection
// helper running `docker system dial-stdio` on the other side. A cell is
// built on and run from that engine by its ssh:// URL, and again by the
// name of a Docker context made with `docker context create`, which the
// harness resolves from the context store as the CLI does. Neither run
// leaves anything on either engine; the user's Docker contexts are not
// touched.
func TestSSHEngine(t *testing.T) {
	eng := connect(t)
	second := startSecondEngine(t)
	srv := startSSHServer(t, second)
	ctx := context.Background()
	eng2, err := engine.Dial(ctx, "second", second.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer eng2.Close()
	dataRoot := second.Data

	// The server takes keys only; the docker CLI through ssh:// reaches
	// the namespace's engine, not the machine's.
	pw := exec.Command(srv.SSH, "-o", "BatchMode=yes", "-o", "PreferredAuthentications=password,keyboard-interactive",
		strings.TrimPrefix(srv.URL, "ssh://"), "true")
	pw.Env = srv.Env
	if out, err := pw.CombinedOutput(); err == nil || !strings.Contains(string(out), "Permission denied (publickey)") {
		t.Errorf("a login without the key: %v: %s", err, out)
	}
	if got := srv.run(t, "docker", "-H", srv.URL, "info", "--format", "{{.DockerRootDir}}"); got != dataRoot {
		t.Fatalf("docker -H %s reaches the engine at %s, want %s", srv.URL, got, dataRoot)
	}

	file := oneTrial(t, writeMatrixTrials(t, "shared", "0", "1s", "node-http")) // the way there is asserted, not figures
	giveBuilt(ctx, t, eng, eng2, "node-http")
	cell := "node-http/plaintext/1cpu/c16"
	check := func(how, host, out string, code, pid int) {
		t.Helper()
		for _, e := range []*engine.Engine{eng, eng2} {
			if left, err := e.List(ctx, engine.LabelPID+"="+strconv.Itoa(pid)); err != nil || len(left) > 0 {
				t.Errorf("%s: left on engine %s: %v %v", how, e.Name, left, err)
			}
		}
		run, err := results.Read(out)
		if code != cli.ExitOK || err != nil {
			t.Fatalf("%s: exit %d, %v", how, code, err)
		}
		tg, ok := run.Environment.Machine(results.RoleTarget)
		if !ok || tg.Host != host || tg.Address != second.Addr || tg.OnlineCPUs < 1 {
			t.Errorf("%s: target machine %+v, want host %s at %s", how, tg, host, second.Addr)
		}
		c := cellsByID(run)[cell]
		if c == nil || c.Status != results.OK || len(c.Trials) != 1 || c.Trials[0].RPS <= 0 || c.Image == nil {
			t.Fatalf("%s: %s = %+v", how, cell, c)
		}
		if _, _, ok, err := eng2.ImageLabels(ctx, c.Image.ID); err != nil || !ok {
			t.Errorf("%s: image %s is not on the namespace's engine (%v)", how, c.Image.ID, err)
		}
	}

	// (a) By URL.
	out := t.TempDir()
	code, pid := srv.harness(ctx, t, "run", "-f", file, "--out", out, "--only", "node-http/plaintext", "--no-ceiling",
		"--target-engine", srv.URL)
	check("ssh:// URL", srv.URL, out, code, pid)

	// (b) By a context's name, in a Docker config folder of the test's own.
	name := "webbench-e2e-ssh-" + strconv.Itoa(os.Getpid())
	srv.run(t, "docker", "context", "create", name, "--description", "webbench end-to-end", "--docker", "host="+srv.URL)
	if got := srv.run(t, "docker", "context", "inspect", name, "--format", "{{.Endpoints.docker.Host}}"); got != srv.URL {
		t.Errorf("context %s endpoint %q, want %q", name, got, srv.URL)
	}
	if got := srv.run(t, "docker", "--context", name, "info", "--format", "{{.DockerRootDir}}"); got != dataRoot {
		t.Fatalf("docker --context %s reaches the engine at %s, want %s", name, got, dataRoot)
	}
	out = t.TempDir()
	code, pid = srv.harness(ctx, t, "run", "-f", file, "--out", out, "--only", "node-http/plaintext", "--no-ceiling",
		"--target-engine", name, "--target-address", second.Addr)
	check("docker context", name, out, code, pid)

	// The user's own contexts never saw it.
	mine, err := exec.Command("docker", "context", "ls", "--format", "{{.Name}}").Output()
	if err != nil || strings.Contains(string(mine), name) {
		t.Errorf("the user's contexts: %v: %s", err, mine)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// stderrOf is what a failed command said on stderr, when exec kept it.
func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// slicesWithout drops the variables named by prefixes from env: the
// client environment names its engine only by what the test passes.
func slicesWithout(env []string, prefixes ...string) []string {
	var kept []string
	for _, v := range env {
		drop := false
		for _, p := range prefixes {
			drop = drop || strings.HasPrefix(v, p)
		}
		if !drop {
			kept = append(kept, v)
		}
	}
	return kept
}
