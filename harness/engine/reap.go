package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// LabelBuilder is on the images the harness builds: the process that built
// them, "<pid>@<host>", so that a reap removes a dangling image only once
// that process is gone. Images do not carry LabelPID and LabelHost, as
// containers do: the classic builder applies a build's labels one step
// each, in the order of their keys, and an image built on one of the
// harness's own images (a stand-in) inherits that image's labels until
// its own are applied. This key sorts before every other label the harness
// sets, so from the first of those steps on an image names the process
// building it; the steps before them are told apart by reapable.
const LabelBuilder = "io.webbench.builder"

// builder is the value of LabelBuilder for this process.
func builder() string {
	host, _ := os.Hostname()
	return strconv.Itoa(os.Getpid()) + "@" + host
}

// parseBuilder reads a LabelBuilder value; ok is false when it is not one.
func parseBuilder(v string) (pid int, host string, ok bool) {
	p, host, found := strings.Cut(v, "@")
	pid, err := strconv.Atoi(p)
	return pid, host, found && err == nil && pid > 0 && host != ""
}

// Reap removes containers and networks carrying the tool label whose owning
// process is gone (everything a killed run left behind), or every one of
// them when all is set, and the dangling images of the harness's builds
// that reapable picks. Not-found is success: another reaper may have been
// first.
func (e *Engine) Reap(ctx context.Context, all bool) (removed []string, err error) {
	objs, err := e.List(ctx)
	if err != nil {
		return nil, err
	}
	var errs []error
	// Containers first: a network cannot go while a container is on it.
	for _, o := range objs {
		if !all && !orphaned(o.Labels) {
			continue
		}
		remove := e.RemoveContainer
		if o.Kind == "network" {
			remove = e.RemoveNetwork
		}
		if err := remove(ctx, o.ID); err != nil {
			errs = append(errs, err)
		} else {
			removed = append(removed, o.String())
		}
	}
	images, err := e.reapImages(ctx, all)
	return append(removed, images...), errors.Join(append(errs, err)...)
}

// reapImages removes the dangling images reapable picks, with the untagged
// images below them that nothing else is built on (their build's steps),
// as docker image prune does. An image a container still uses is left.
func (e *Engine) reapImages(ctx context.Context, all bool) (removed []string, err error) {
	// Every image built on one carrying the tool label carries it too (a
	// build cannot remove a label), so this list holds every child and
	// every ancestor of the harness's own that reapable needs.
	list, err := e.cli.ImageList(ctx, client.ImageListOptions{All: true, Filters: toolFilter()})
	if err != nil {
		return nil, fmt.Errorf("list images: %w", err)
	}
	imgs := make([]toolImage, 0, len(list.Items))
	for _, s := range list.Items {
		img := toolImage{ID: s.ID, Parent: s.ParentID, Labels: s.Labels}
		for _, t := range s.RepoTags {
			img.Tagged = img.Tagged || t != "<none>:<none>"
		}
		imgs = append(imgs, img)
	}
	var errs []error
	for _, id := range reapable(imgs, all, gone) {
		res, err := e.cli.ImageRemove(ctx, id, client.ImageRemoveOptions{PruneChildren: true})
		if err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
			errs = append(errs, fmt.Errorf("remove image %s: %w", id, err))
		}
		for _, d := range res.Items {
			if d.Deleted != "" {
				removed = append(removed, "image "+d.Deleted)
			}
		}
	}
	return removed, errors.Join(errs...)
}

// toolImage is what a reap knows of an image carrying the tool label.
type toolImage struct {
	ID, Parent string // Parent: "" when the engine keeps none (BuildKit, the containerd store)
	Labels     map[string]string
	Tagged     bool
}

// reapable picks, among imgs (every image carrying the tool label, the
// classic builder's step images included), the dangling ones (untagged,
// nothing built on them) that a reap removes: with all, every one;
// otherwise those whose LabelBuilder is their own and names a process that
// isGone says has ended. Only what no live process is building or has
// built may go: another run may be building beside this one.
//
// A builder label is an image's own unless an image below it with the same
// builder and context hash was tagged or has other images built on it: that
// is a finished build (a stand-in) the image was built on, and the image is
// a step of a build that failed or is still under way, whose labels are
// the base's until its own are applied; who is building it cannot be told.
// A build's own label steps lie below its result with its builder and hash,
// but each has one image on it and none was tagged. Images without a
// builder label (built by older versions) are left too.
func reapable(imgs []toolImage, all bool, isGone func(pid int, host string) bool) []string {
	byID := make(map[string]toolImage, len(imgs))
	children := map[string]int{}
	for _, img := range imgs {
		byID[img.ID] = img
		if img.Parent != "" {
			children[img.Parent]++
		}
	}
	var out []string
	for _, img := range imgs {
		if img.Tagged || children[img.ID] > 0 {
			continue // not dangling
		}
		if all {
			out = append(out, img.ID)
			continue
		}
		pid, host, ok := parseBuilder(img.Labels[LabelBuilder])
		if ok && !inherited(img, byID, children) && isGone(pid, host) {
			out = append(out, img.ID)
		}
	}
	return out
}

// inherited reports whether img's builder and context hash are those of a
// finished build below it (see reapable).
func inherited(img toolImage, byID map[string]toolImage, children map[string]int) bool {
	b, h := img.Labels[LabelBuilder], img.Labels[LabelHash]
	// At most len(byID) steps down: an engine never reports a cycle of
	// parents, but a reap must not loop on one.
	for range byID {
		p, ok := byID[img.Parent]
		if !ok || p.Labels[LabelBuilder] != b || p.Labels[LabelHash] != h {
			return false
		}
		if p.Tagged || children[p.ID] > 1 {
			return true
		}
		img = p
	}
	return false
}
