package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/buildtime"
	"github.com/webbench/webbench/harness/engine"
	"github.com/webbench/webbench/harness/matrix"
)

// buildEstimate says, before anything is built, which stand-ins and images
// the run will build (cached ones excluded) and about how long that takes
// on this machine, and returns that time for the run's estimate. A base
// image that a pull provides instead makes it an overestimate.
func (r *runner) buildEstimate(ctx context.Context, cells []matrix.Cell) time.Duration {
	keys := map[string]bool{"debian": true, "golang": true} // the load generator's
	runs := map[string]bool{}
	for _, c := range cells {
		if c.Skip == "" {
			runs[c.Target] = true
		}
	}
	for _, t := range r.m.Targets {
		if runs[t.Name] {
			for _, k := range t.Images() {
				keys[k] = true
			}
		}
	}
	var kinds []buildtime.Kind
	for k := range keys {
		kinds = append(kinds, r.resolver.Pending(ctx, k)...)
	}
	standIns := len(kinds)
	// Images: what their build arguments will most likely be (the official
	// image where the engine has it, else the stand-in) decides the hash.
	used := func(key string) string {
		ref := r.m.Images[key]
		if ref == "" {
			ref = LoadgenImages[key]
		}
		if _, _, ok, _ := r.eng.ImageLabels(ctx, ref); ok || !baseimage.HasStandIn(key) {
			return ref
		}
		return baseimage.StandInRef(ref)
	}
	if files, err := loadgenContext(); err == nil {
		spec := engine.BuildSpec{Context: files, Dockerfile: "docker/loadgen/Dockerfile", Tag: "webbench/loadgen:latest",
			BuildArgs: map[string]string{"DEBIAN_IMAGE": used("debian"), "GOLANG_IMAGE": used("golang")}}
		if cached, err := r.eng.Cached(ctx, spec); err != nil || !cached {
			kinds = append(kinds, buildtime.Image)
		}
	}
	for _, t := range r.m.Targets {
		if !runs[t.Name] {
			continue
		}
		for _, svc := range t.Services {
			args := map[string]string{}
			for _, key := range svc.Images {
				args[strings.ToUpper(key)+"_IMAGE"] = used(key)
			}
			cached, err := r.eng.Cached(ctx, engine.BuildSpec{Context: os.DirFS(svc.Build), Tag: imageTag(t, svc), BuildArgs: args})
			if err != nil || !cached {
				kinds = append(kinds, buildtime.Image)
			}
		}
	}
	if len(kinds) == 0 {
		return 0
	}
	var total time.Duration
	learned := true
	for _, k := range kinds {
		d, ok := r.times.Guess(k)
		total += d
		learned = learned && ok
	}
	how := "from this machine's earlier builds"
	if !learned {
		how = "partly from documented defaults: this machine has not built every kind yet"
	}
	fmt.Fprintf(r.log, "to build before measuring: %d stand-in step(s) and %d image(s), about %s (%s)\n",
		standIns, len(kinds)-standIns, total.Round(time.Second), how)
	return total
}
