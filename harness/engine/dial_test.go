package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/internal/redact"
)

// writeContext stores a docker context as `docker context create NAME
// --docker host=HOST` does: contexts/meta/<sha256 of NAME>/meta.json.
func writeContext(t *testing.T, dir, name, host string) {
	t.Helper()
	sum := sha256.Sum256([]byte(name))
	meta := filepath.Join(dir, "contexts", "meta", hex.EncodeToString(sum[:]))
	if err := os.MkdirAll(meta, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := `{"Name":"` + name + `","Metadata":{"Description":"test"},"Endpoints":{"docker":{"Host":"` + host + `","SkipTLSVerify":false}}}`
	if err := os.WriteFile(filepath.Join(meta, "meta.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A context name resolves through the docker config folder to its
// endpoint, as the CLI resolves it; errors name the engine.
func TestDialContext(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	sock := filepath.Join(dir, "no-engine.sock")
	writeContext(t, dir, "bench-server", "unix://"+sock)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err := Dial(ctx, "server", "bench-server")
	if err == nil || !strings.Contains(err.Error(), "engine server (bench-server) not reachable") || !strings.Contains(err.Error(), sock) {
		t.Errorf("context pointing at a missing socket: %v", err)
	}
	_, err = Dial(ctx, "server", "no-such-context")
	if err == nil || !strings.Contains(err.Error(), `docker context "no-such-context"`) {
		t.Errorf("unknown context: %v", err)
	}
	_, err = Dial(ctx, "client", "unix://"+sock)
	if err == nil || !strings.Contains(err.Error(), "engine client (unix://"+sock+") not reachable") {
		t.Errorf("missing socket by URL: %v", err)
	}
}

// A tcp:// engine with a password in its URL, unreachable: no error that
// reaches the user repeats the password once redact.Text has read it,
// however the SDK words it.
func TestRedactErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Dial(ctx, "server", "tcp://admin:hunter2@127.0.0.1:1")
	if err == nil {
		t.Fatal("dialled a closed port")
	}
	if got := redact.Text(err.Error()); strings.Contains(got, "hunter2") || !strings.Contains(got, "admin:xxxxx@") {
		t.Errorf("redacted error %q", got)
	}
}

// DOCKER_HOST=ssh://… in the environment goes through the connection
// helper, as the CLI does, not to a TCP host named "ssh".
func TestDialEnvSSH(t *testing.T) {
	t.Setenv("DOCKER_HOST", "ssh://nobody@127.0.0.1:1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, "default", "")
	// Through the helper the error quotes ssh's stderr (dial-stdio), or,
	// when ssh exits before that is read, the helper's placeholder host
	// docker.example.com; a TCP dial to a host "ssh" would show neither.
	viaHelper := err != nil && (strings.Contains(err.Error(), "dial-stdio") || strings.Contains(err.Error(), "docker.example.com"))
	if !viaHelper || !strings.Contains(err.Error(), "engine default (ssh://nobody@127.0.0.1:1)") {
		t.Errorf("DOCKER_HOST=ssh://: %v", err)
	}
}

// ssh:// goes through the docker CLI's connection helper (ssh running
// `docker system dial-stdio` there); with nothing listening, the error
// names the engine and its URL.
func TestDialSSH(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Dial(ctx, "server", "ssh://nobody@127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "engine server (ssh://nobody@127.0.0.1:1)") {
		t.Errorf("ssh to a closed port: %v", err)
	}
}

// A context's endpoint URL is read as the CLI stores it; an unknown
// context is an error naming it.
func TestContextHost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	writeContext(t, dir, "bench-ssh", "ssh://bench@10.0.0.5")
	if got, err := ContextHost("bench-ssh"); err != nil || got != "ssh://bench@10.0.0.5" {
		t.Errorf("ContextHost(bench-ssh) = %q, %v", got, err)
	}
	if _, err := ContextHost("no-such-context"); err == nil || !strings.Contains(err.Error(), `docker context "no-such-context"`) {
		t.Errorf("unknown context: %v", err)
	}
}
