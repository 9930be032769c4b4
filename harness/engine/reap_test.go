package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/moby/moby/client"
)

// img is a tool-labelled image of the engine reapable is shown: labels
// builder and hash (either may be ""), the tool label as every such image
// has it.
func img(id, parent, builder, hash string, tagged bool) toolImage {
	labels := map[string]string{LabelTool: ToolName}
	if builder != "" {
		labels[LabelBuilder] = builder
	}
	if hash != "" {
		labels[LabelHash] = hash
	}
	return toolImage{ID: id, Parent: parent, Labels: labels, Tagged: tagged}
}

// TestReapable: a reap removes a dangling image only when the process that
// built it is gone and the builder label is the image's own. It leaves the
// steps of a build under way or failed on one of the harness's images (a
// stand-in), which carry that image's labels, whoever built it; images of
// a live builder, of another host, of older versions (no builder label);
// and anything tagged or built on. The classic builder's steps are as an
// engine shows them: a build's labels come one step each, its builder
// first, and only its last step has the tool label unless its base had it.
func TestReapable(t *testing.T) {
	const (
		dead  = "101@here" // built the stand-in, then quit
		dead2 = "102@here"
		live  = "200@here" // a run building beside this one
		far   = "300@there"
	)
	imgs := []toolImage{
		img("base", "", dead, "hb", true), // the stand-in, tagged
		// A live run's build on it, still at its Dockerfile's steps:
		// its images name the stand-in's builder, gone.
		img("live-step1", "base", dead, "hb", false),
		img("live-step2", "live-step1", dead, "hb", false),
		// Another live build on it, at its own labels' first step.
		img("live-label", "base", live, "hb", false),
		// A build on it that failed (its builder may be gone or not).
		img("failed-step", "base", dead, "hb", false),
		// A rebuilt target: its old image, dangling, from a gone
		// builder, with its own label steps below it.
		img("old-step", "base", dead, "hb", false),
		img("old-label1", "old-step", dead2, "hb", false),
		img("old-label2", "old-label1", dead2, "ht", false),
		img("old-target", "old-label2", dead2, "ht", false),
		// The same by the stand-in's own builder, in the same run.
		img("same-step", "base", dead, "hb", false),
		img("same-label1", "same-step", dead, "hb", false),
		img("same-label2", "same-label1", dead, "hs", false),
		img("same-target", "same-label2", dead, "hs", false),
		// A live builder's rebuilt image, another host's, an older
		// version's (no builder), a malformed builder.
		img("live-old", "", live, "hl", false),
		img("far-old", "", far, "hf", false),
		img("legacy", "", "", "hx", false),
		img("garbled", "", "nobody", "hg", false),
		// A stand-in replaced since: untagged, two builds on it.
		img("old-base", "", dead, "ho", false),
		img("on-old-1", "old-base", dead, "ho", true),
		img("on-old-2", "old-base", dead, "ho", false), // a failed build's step
	}
	isGone := func(pid int, host string) bool { return host == "here" && pid != 200 }

	got := reapable(imgs, false, isGone)
	sort.Strings(got)
	if want := []string{"old-target", "same-target"}; !slices.Equal(got, want) {
		t.Errorf("reapable = %v, want %v: only dangling images whose own builder is gone", got, want)
	}

	got = reapable(imgs, true, isGone)
	sort.Strings(got)
	want := []string{"failed-step", "far-old", "garbled", "legacy", "live-label", "live-old", "live-step2", "old-target", "on-old-2", "same-target"}
	if !slices.Equal(got, want) {
		t.Errorf("reapable with all = %v, want every dangling image %v", got, want)
	}
}

// TestBuilderLabelFirst: the builder label sorts before every other label
// a build sets, as reapable needs (the classic builder applies them in
// the order of their keys), and it names this process.
// TestOrphaned: an object is orphaned only when it names an owner of this
// host that has ended. A container with the tool label and no owner is a
// build's step on one of the harness's images, which a reap beside the
// build must leave.
func TestOrphaned(t *testing.T) {
	quit := exec.Command("true")
	if err := quit.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, c := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{LabelTool: ToolName, LabelPID: strconv.Itoa(quit.Process.Pid), LabelHost: host}, true},
		{map[string]string{LabelTool: ToolName, LabelPID: strconv.Itoa(os.Getpid()), LabelHost: host}, false},
		{map[string]string{LabelTool: ToolName, LabelPID: strconv.Itoa(quit.Process.Pid), LabelHost: "elsewhere"}, false},
		{map[string]string{LabelTool: ToolName, LabelBuilder: strconv.Itoa(quit.Process.Pid) + "@" + host}, false},
	} {
		if got := orphaned(c.labels); got != c.want {
			t.Errorf("orphaned(%v) = %v, want %v", c.labels, got, c.want)
		}
	}
}

func TestBuilderLabelFirst(t *testing.T) {
	labels := buildLabels("h", map[string]string{LabelRole: "target", LabelTarget: "t", LabelCell: "c", LabelRun: "r", LabelService: "s"})
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if keys[0] != LabelBuilder {
		t.Errorf("label keys sort %v, want %s first", keys, LabelBuilder)
	}
	if pid, host, ok := parseBuilder(labels[LabelBuilder]); !ok || gone(pid, host) {
		t.Errorf("builder label %q: want this live process", labels[LabelBuilder])
	}
	for _, v := range []string{"", "12", "x@h", "0@h", "-1@h", "12@"} {
		if _, _, ok := parseBuilder(v); ok {
			t.Errorf("parseBuilder(%q) ok, want refused", v)
		}
	}
}

// TestReapImages builds, on the real engine, what reapable is shown in
// TestReapable: a stand-in by a builder now gone, a build on it that failed
// (its step carries the stand-in's labels), and a target rebuilt, its old
// image dangling. Once the builder is gone, a reap removes the old target
// and leaves the failed build's step, whose builder cannot be told.
func TestReapImages(t *testing.T) {
	ctx := context.Background()
	e := realEngine(t, "builds images on the Docker engine")
	// The builder lives while the images are built, as a run does, so
	// that a reap beside this test (another package's) leaves the
	// build's steps; it quits before this test's own reap.
	quit := exec.Command("sleep", "600")
	if err := quit.Start(); err != nil {
		t.Fatal(err)
	}
	defer quit.Process.Kill()
	host, _ := os.Hostname()
	dead := strconv.Itoa(quit.Process.Pid) + "@" + host
	own := func() []toolImage {
		list, err := e.cli.ImageList(ctx, client.ImageListOptions{All: true, Filters: toolFilter(LabelBuilder + "=" + dead)})
		if err != nil {
			t.Fatal(err)
		}
		var out []toolImage
		for _, s := range list.Items {
			out = append(out, toolImage{ID: s.ID, Parent: s.ParentID, Labels: s.Labels})
		}
		return out
	}
	defer func() {
		for _, img := range own() {
			e.cli.ImageRemove(context.WithoutCancel(ctx), img.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
		}
	}()
	unique := fmt.Sprintf("%s %d\n", dead, time.Now().UnixNano()) // no layer shared with another test's
	build := func(tag, dockerfile, data string) error {
		_, err := e.Build(ctx, BuildSpec{Tag: tag, Labels: map[string]string{LabelBuilder: dead}, Context: fstest.MapFS{
			"Dockerfile": {Data: []byte(dockerfile)}, "data": {Data: []byte(unique + data)}}})
		return err
	}
	base := "webbench-test/reap-base:" + strconv.Itoa(os.Getpid())
	target := "webbench-test/reap-target:" + strconv.Itoa(os.Getpid())
	if err := build(base, "FROM scratch\nCOPY data /base\n", "base"); err != nil {
		t.Fatal(err)
	}
	if err := build(target, "FROM "+base+"\nCOPY data /failed\nRUN false\n", "failed"); err == nil {
		t.Fatal("a RUN on an image with no shell built")
	}
	if err := build(target, "FROM "+base+"\nCOPY data /target\n", "old"); err != nil {
		t.Fatal(err)
	}
	oldID, _, _, err := e.ImageLabels(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if err := build(target, "FROM "+base+"\nCOPY data /target\n", "new"); err != nil {
		t.Fatal(err)
	}
	baseID, baseLabels, _, err := e.ImageLabels(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var failedStep string
	imgs := own()
	for _, img := range imgs {
		built := slices.ContainsFunc(imgs, func(c toolImage) bool { return c.Parent == img.ID })
		if img.Parent == baseID && !built && img.Labels[LabelHash] == baseLabels[LabelHash] {
			failedStep = img.ID
		}
	}
	if failedStep == "" {
		t.Fatal("the failed build left no step carrying the stand-in's labels: the engine builds otherwise than reapable expects")
	}
	quit.Process.Kill()
	quit.Wait()
	if _, err := e.Reap(ctx, false); err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, img := range own() {
		left[img.ID] = true
	}
	if left[oldID] {
		t.Errorf("the rebuilt target's old image %s, its builder gone, was left", oldID)
	}
	if !left[failedStep] {
		t.Errorf("the failed build's step %s was removed, though who builds it cannot be told", failedStep)
	}
}
