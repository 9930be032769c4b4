package engine

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/client"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// BuildSpec is one image build.
type BuildSpec struct {
	Context    fs.FS  // the build context; its .dockerignore is honoured
	Dockerfile string // path inside Context; "" means Dockerfile
	Tag        string
	BuildArgs  map[string]string
	Labels     map[string]string
	Log        io.Writer // receives the build's output; may be nil
}

// Built is the outcome of Build.
type Built struct {
	ID     string
	Cached bool // an image with this tag and content hash existed; nothing was built
	// Warm: the engine's layer cache served some of its RUN steps, so
	// its time says little about a first build (what estimates learn).
	Warm bool
}

// Cached reports whether an image tagged s.Tag already carries the content
// hash of s's inputs, so that Build would build nothing.
func (e *Engine) Cached(ctx context.Context, s BuildSpec) (bool, error) {
	if s.Dockerfile == "" {
		s.Dockerfile = "Dockerfile"
	}
	hash, err := WriteContext(io.Discard, s.Context, s.Dockerfile, s.BuildArgs)
	if err != nil {
		return false, err
	}
	_, labels, ok, err := e.ImageLabels(ctx, s.Tag)
	return ok && labels[LabelHash] == hash, err
}

// Build builds s.Tag from s.Context with the classic builder (the one every
// engine has), unless an image with that tag already carries the content
// hash of these inputs. A failure names the failing step and quotes the
// end of the build log.
func (e *Engine) Build(ctx context.Context, s BuildSpec) (Built, error) {
	if s.Dockerfile == "" {
		s.Dockerfile = "Dockerfile"
	}
	// One pass to hash (nothing held), a second to stream to the engine
	// if the image is not already built from these inputs.
	hash, err := WriteContext(io.Discard, s.Context, s.Dockerfile, s.BuildArgs)
	if err != nil {
		return Built{}, err
	}
	if id, labels, ok, err := e.ImageLabels(ctx, s.Tag); err != nil {
		return Built{}, err
	} else if ok && labels[LabelHash] == hash {
		return Built{ID: id, Cached: true}, nil
	}
	if id, err := e.sameInputs(ctx, hash, s.Tag); err != nil || id != "" {
		return Built{ID: id, Cached: id != ""}, err
	}
	args := map[string]*string{}
	for k, v := range s.BuildArgs {
		args[k] = &v
	}
	labels := buildLabels(hash, s.Labels)
	pr, pw := io.Pipe()
	go func() {
		_, err := WriteContext(pw, s.Context, s.Dockerfile, s.BuildArgs)
		pw.CloseWithError(err)
	}()
	defer pr.Close() // ends the writer if the engine stops reading
	resp, err := e.cli.ImageBuild(ctx, pr, client.ImageBuildOptions{
		Tags: []string{s.Tag}, Dockerfile: s.Dockerfile, BuildArgs: args, Labels: labels,
		Remove: true, ForceRemove: true, Version: build.BuilderV1,
	})
	if err != nil {
		return Built{}, fmt.Errorf("build %s: %w", s.Tag, err)
	}
	defer resp.Body.Close()
	log := s.Log
	if log == nil {
		log = io.Discard
	}
	var tail tailBuffer
	var steps stepCounter
	if err := readMessages(resp.Body, io.MultiWriter(log, &tail, &steps)); err != nil {
		return Built{}, fmt.Errorf("build %s: %w\n%s", s.Tag, err, tail.String())
	}
	id, _, ok, err := e.ImageLabels(ctx, s.Tag)
	if err != nil || !ok {
		return Built{}, fmt.Errorf("build %s: no image after a build that reported success (%v)", s.Tag, err)
	}
	return Built{ID: id, Warm: steps.cached > 0 && steps.cached*2 >= steps.run}, nil
}

// buildLabels are the labels a build puts on its image: the tool's, the
// hash of its inputs, its builder (this process: an image that a rebuild
// left dangling is reaped once its builder is gone, not while it may still
// be building), and extra.
func buildLabels(hash string, extra map[string]string) map[string]string {
	labels := map[string]string{LabelTool: ToolName, LabelHash: hash, LabelBuilder: builder()}
	for k, v := range extra {
		labels[k] = v
	}
	return labels
}

// sameInputs gives tag to an image another tag was built from the same
// inputs (context, Dockerfile, build arguments: the hash), and returns its
// id; "" when there is none. Targets that share a service's folder (the
// records API of every serial-* target) then share its image instead of
// asking the engine's layer cache again: builds side by side can leave it
// two sibling layers for one step (WORKDIR /src on the golang image), and
// it may then match the later steps against the wrong one and rebuild
// them all. The image keeps the labels of the target that built it.
func (e *Engine) sameInputs(ctx context.Context, hash, tag string) (string, error) {
	list, err := e.cli.ImageList(ctx, client.ImageListOptions{Filters: client.Filters{}.Add("label", LabelHash+"="+hash)})
	if err != nil || len(list.Items) == 0 {
		return "", err
	}
	id := list.Items[0].ID
	if _, err := e.cli.ImageTag(ctx, client.ImageTagOptions{Source: id, Target: tag}); err != nil {
		return "", fmt.Errorf("tag %s as %s: %w", id, tag, err)
	}
	return id, nil
}

// MaxContext bounds a build context: a larger one is almost always a
// folder a .dockerignore should have left out (a data file, a VM image).
const MaxContext = 2 << 30

// TarContext packs fsys as a build context in memory; see WriteContext.
// Tests use it; builds stream.
func TarContext(fsys fs.FS, dockerfile string, buildArgs map[string]string) ([]byte, string, error) {
	var buf bytes.Buffer
	hash, err := WriteContext(&buf, fsys, dockerfile, buildArgs)
	return buf.Bytes(), hash, err
}

// WriteContext streams fsys to w as a build context, leaving out what its
// .dockerignore excludes (never the Dockerfile itself), with fixed times
// and owners so that the same files give the same bytes, and returns its
// hash. The hash covers the files' names, modes and contents, the
// Dockerfile name and the build args: touching a file does not change it,
// editing one does. Files are copied, never held whole: a context of any
// size takes a few buffers of memory; one past MaxContext is refused.
func WriteContext(w io.Writer, fsys fs.FS, dockerfile string, buildArgs map[string]string) (string, error) {
	pm, err := dockerignore(fsys)
	if err != nil {
		return "", err
	}
	c := &contextWriter{fsys: fsys, dockerfile: dockerfile, pm: pm, tw: tar.NewWriter(w), h: sha256.New()}
	fmt.Fprintf(c.h, "dockerfile %q\n", dockerfile)
	keys := make([]string, 0, len(buildArgs))
	for k := range buildArgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(c.h, "arg %q=%q\n", k, buildArgs[k])
	}
	if err := fs.WalkDir(fsys, ".", c.add); err != nil {
		return "", fmt.Errorf("build context: %w", err)
	}
	if err := c.tw.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(c.h.Sum(nil))[:16], nil
}

// dockerignore reads the .dockerignore of fsys, if it has one, into a
// matcher of the paths it excludes.
// maxDockerignore bounds a .dockerignore: far above any real one.
const maxDockerignore = 1 << 20

func dockerignore(fsys fs.FS) (*patternmatcher.PatternMatcher, error) {
	var excludes []string
	// Stat before Open: opening a FIFO waits for a writer that never
	// comes, and a device such as /dev/zero never ends.
	if st, err := fs.Stat(fsys, ".dockerignore"); err == nil {
		if !st.Mode().IsRegular() || st.Size() > maxDockerignore {
			return nil, fmt.Errorf(".dockerignore: not a regular file of at most %d bytes (mode %s, %d bytes)", maxDockerignore, st.Mode(), st.Size())
		}
		f, err := fsys.Open(".dockerignore")
		if err != nil {
			return nil, fmt.Errorf(".dockerignore: %w", err)
		}
		excludes, err = ignorefile.ReadAll(io.LimitReader(f, maxDockerignore))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf(".dockerignore: %w", err)
		}
	}
	pm, err := patternmatcher.New(excludes)
	if err != nil {
		return nil, fmt.Errorf(".dockerignore: %w", err)
	}
	return pm, nil
}

// contextWriter writes the files of a build context to a tar stream and
// its hash, one WalkDir entry at a time.
type contextWriter struct {
	fsys       fs.FS
	dockerfile string
	pm         *patternmatcher.PatternMatcher
	tw         *tar.Writer
	h          hash.Hash
	total      int64 // bytes of regular files so far
}

// add is the fs.WalkDirFunc of WriteContext: it writes entry p unless the
// .dockerignore excludes it, and adds its name, mode and contents (or link
// target) to the hash.
func (c *contextWriter) add(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return err
	}
	if p == "." {
		return nil
	}
	if p != c.dockerfile && p != ".dockerignore" {
		skip, err := c.pm.MatchesOrParentMatches(p)
		if err != nil {
			return err
		}
		if skip {
			if d.IsDir() && !c.pm.Exclusions() {
				return fs.SkipDir
			}
			return nil
		}
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: p, Mode: int64(info.Mode().Perm()), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
	switch {
	case d.IsDir():
		hdr.Typeflag, hdr.Name = tar.TypeDir, p+"/"
		fmt.Fprintf(c.h, "dir %q %o\n", p, hdr.Mode)
		return c.tw.WriteHeader(hdr)
	case d.Type()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(c.fsys, p)
		if err != nil {
			return err
		}
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, target
		fmt.Fprintf(c.h, "link %q %q\n", p, target)
		return c.tw.WriteHeader(hdr)
	case d.Type().IsRegular():
		return c.file(p, hdr, info.Size())
	}
	return nil // sockets, devices: not part of a build context
}

// file writes regular file p of size bytes under header hdr, refusing it
// when it takes the context past MaxContext.
func (c *contextWriter) file(p string, hdr *tar.Header, size int64) error {
	if c.total += size; c.total > MaxContext {
		return fmt.Errorf("more than %d GiB (at %s, %d MiB): leave large files out with a .dockerignore", MaxContext>>30, p, size>>20)
	}
	f, err := c.fsys.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr.Typeflag, hdr.Size = tar.TypeReg, size
	if err := c.tw.WriteHeader(hdr); err != nil {
		return err
	}
	sum := sha256.New()
	if _, err := io.Copy(io.MultiWriter(c.tw, sum), f); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	fmt.Fprintf(c.h, "file %q %o %x\n", p, hdr.Mode, sum.Sum(nil))
	return nil
}

// message is one line of the engine's JSON progress stream.
type message struct {
	Stream      string `json:"stream"`
	Status      string `json:"status"`
	Error       string `json:"error"`
	ErrorDetail *struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// readMessages copies a build/pull/import progress stream's text to w and
// returns the error the stream ends with, if any.
func readMessages(r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(r)
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if m.Stream != "" {
			io.WriteString(w, m.Stream)
		} else if m.Status != "" {
			io.WriteString(w, m.Status+"\n")
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return errors.New(strings.TrimSpace(m.ErrorDetail.Message))
		}
		if m.Error != "" {
			return errors.New(strings.TrimSpace(m.Error))
		}
	}
}

// stepCounter reads the classic builder's output: how many RUN steps it
// ran, and how many of them its layer cache served (" ---> Using cache"
// right after a "Step N/M : RUN" line).
type stepCounter struct {
	run, cached int
	inRun       bool
}

func (c *stepCounter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(string(p), "\n") {
		switch t := strings.TrimSpace(l); {
		case strings.HasPrefix(t, "Step "):
			_, instr, _ := strings.Cut(t, " : ")
			c.inRun = strings.HasPrefix(strings.ToUpper(instr), "RUN ")
			if c.inRun {
				c.run++
			}
		case c.inRun && t == "---> Using cache":
			c.cached++
			c.inRun = false
		}
	}
	return len(p), nil
}

// tailBuffer keeps the last lines written to it, to quote a failing step.
type tailBuffer struct{ lines []string }

const tailLines = 25

func (t *tailBuffer) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		t.lines = append(t.lines, l)
	}
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
	return len(p), nil
}

// String returns the kept lines from the last build step on.
func (t *tailBuffer) String() string {
	start := 0
	for i, l := range t.lines {
		if strings.HasPrefix(l, "Step ") {
			start = i
		}
	}
	return strings.Join(t.lines[start:], "\n")
}

func newJSONDecoder(r io.Reader) *json.Decoder { return json.NewDecoder(r) }
