package runner

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/webbench/webbench/harness/buildtime"
)

// Two targets built from one folder (study 002's variants of its Go
// service differ only in their environment) build one image: the second is
// the first's cache. The estimate counts it once: the load generator and
// one image at 40 s, not three.
func TestBuildEstimateSharedFolder(t *testing.T) {
	text := strings.Replace(twoTargets, "b: {build: b, port: 8080}", "b: {build: a, port: 8080, env: {K: other}}", 1)
	m := testMatrix(t, text, "one", "a")
	book := buildtime.Open(filepath.Join(t.TempDir(), "build-times.json"))
	book.Record(buildtime.Image, 40*time.Second)
	book.Record(buildtime.Loadgen, 40*time.Second)
	var log strings.Builder
	res, err, _ := run(t, newFake(), m, Options{BuildTimes: book, Log: &log})
	if err != nil || len(res.Cells) != 2 {
		t.Fatal(err)
	}
	want := buildsEstimate{Images: 2, Total: 80 * time.Second, Learned: true}
	if !strings.Contains(log.String(), want.String()+"\n") {
		t.Errorf("log lacks the estimate %+v:\n%s", want, log.String())
	}
}
