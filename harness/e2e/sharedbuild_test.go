package e2e

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/webbench/webbench/harness/engine"
)

// Two tags built from the same inputs (context, Dockerfile, arguments) are
// one image: the second build asks the engine for nothing and tags the
// first's image; other inputs are built afresh.
func TestSameInputsOneImage(t *testing.T) {
	eng := connect(t)
	ctx := context.Background()
	files := fstest.MapFS{
		"Dockerfile": {Data: []byte("FROM scratch\nCOPY hello /hello\n")},
		"hello":      {Data: []byte("hello\n")},
	}
	tags := []string{"webbench-test/same-a:latest", "webbench-test/same-b:latest", "webbench-test/other:latest"}
	remove := func() { dockerCLI(ctx, "", append([]string{"rmi", "-f"}, tags...)...) }
	t.Cleanup(remove)
	remove()
	first, err := eng.Build(ctx, engine.BuildSpec{Context: files, Tag: tags[0]})
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.Build(ctx, engine.BuildSpec{Context: files, Tag: tags[1]})
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || second.ID != first.ID {
		t.Errorf("second tag of the same inputs: %+v, want the first's image %s, nothing built", second, first.ID)
	}
	if id, _, ok, _ := eng.ImageLabels(ctx, tags[1]); !ok || id != first.ID {
		t.Errorf("%s is %q (found %v), want %s", tags[1], id, ok, first.ID)
	}
	files["hello"] = &fstest.MapFile{Data: []byte("other\n")}
	other, err := eng.Build(ctx, engine.BuildSpec{Context: files, Tag: tags[2]})
	if err != nil {
		t.Fatal(err)
	}
	if other.Cached || other.ID == first.ID {
		t.Errorf("other inputs: %+v, want a build of its own", other)
	}
}
