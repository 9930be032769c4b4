package cli

import (
	"strings"
	"testing"
)

// Two targets built from one folder build one image (the second is the
// first's cache): plan counts it once.
func TestPlanCountsSharedFolderOnce(t *testing.T) {
	path := writeMatrix(t, strings.Replace(small, "  t: {build: t, port: 8080}\n",
		"  t: {build: t, port: 8080}\n  u: {build: t, port: 8080, env: {MODE: other}}\n", 1))
	code, out, _ := runMain("plan", "-f", path)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if !strings.Contains(out, " 1 target image(s) plus the load generator") {
		t.Errorf("plan output, want 1 target image for the shared folder:\n%s", out)
	}
}
