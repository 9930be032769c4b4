package main

import (
	"encoding/json"
	"net"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// The ceiling stands for what a fasthttp server can do, and the go-fasthttp
// target is measured against it: both must be built on the same fasthttp,
// or a gap between them may be the library's versions, not the generator.
// The harness's go.mod (which builds the ceiling) and the target's must
// name the same version.
func TestFasthttpVersion(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	harness := requiredVersion(t, filepath.Join(root, "go.mod"), "github.com/valyala/fasthttp")
	target := requiredVersion(t, filepath.Join(root, "targets", "go-fasthttp", "go.mod"), "github.com/valyala/fasthttp")
	if harness != target {
		t.Errorf("go.mod requires fasthttp %s (the ceiling server's), targets/go-fasthttp/go.mod %s: bring the older module to the newer version (go get github.com/valyala/fasthttp@VERSION, then go mod tidy, in its folder)",
			harness, target)
	}
}

// requiredVersion is the version the go.mod file at path requires of
// module, read by the go command itself (go mod edit -json reads the file
// alone, with no network and no module cache).
func requiredVersion(t *testing.T, path, module string) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "edit", "-json", path).Output()
	if err != nil {
		t.Fatalf("go mod edit -json %s: %v", path, err)
	}
	var f struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("go mod edit -json %s: %v", path, err)
	}
	for _, r := range f.Require {
		if r.Path == module {
			return r.Version
		}
	}
	t.Fatalf("%s requires no %s", path, module)
	return ""
}

// The ceiling is one per cores × connections × generator, whatever the
// scenario: the fixed-response server answers every request alike, the
// workload scenarios' paths and headers included (no file, no gzip, no
// computation), so that its figure is the generator's limit alone.
func TestAnswersEveryScenarioAlike(t *testing.T) {
	ln := fasthttputil.NewInmemoryListener()
	defer ln.Close()
	go server().Serve(ln)
	c := &fasthttp.Client{Dial: func(string) (net.Conn, error) { return ln.Dial() }}
	for _, tc := range []struct{ path, header string }{
		{"/", ""}, {"/plaintext", ""}, {"/static/1m.bin", ""}, {"/json", "gzip"}, {"/compute?a=1&b=2", ""},
	} {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://ceiling" + tc.path)
		if tc.header != "" {
			req.Header.Set("Accept-Encoding", tc.header)
		}
		if err := c.Do(req, resp); err != nil {
			t.Fatalf("GET %s: %v", tc.path, err)
		}
		if resp.StatusCode() != 200 || string(resp.Body()) != "Hello, World!" || len(resp.Header.ContentEncoding()) != 0 {
			t.Errorf("GET %s (Accept-Encoding %q): %d %q, Content-Encoding %q; want 200 Hello, World! as it is",
				tc.path, tc.header, resp.StatusCode(), resp.Body(), resp.Header.ContentEncoding())
		}
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
	}
}
