package runner

import (
	"context"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/engine"
)

// Engine is what a run needs from a Docker engine, split by role so that
// each part stays small: its images, its containers, their statistics,
// and the host they run on. Split makes one of *engine.Engine; the
// runner's unit tests make one of a fake.
type Engine struct {
	Images     Images
	Containers Containers
	Stats      Stats
	Host       Host
}

// Split is e in its roles; a nil e is no engine (Engine{}).
func Split(e *engine.Engine) Engine {
	if e == nil {
		return Engine{}
	}
	return Engine{Images: e, Containers: e, Stats: e, Host: e}
}

// none says whether e is no engine.
func (e Engine) none() bool { return e.Host == nil }

// Images finds, pulls, imports and builds images.
type Images interface {
	baseimage.Engine // image look-up, pull, import, build, and whether a build would build nothing
	// ImageSize is an image's size in bytes, its layers included.
	ImageSize(ctx context.Context, ref string) (int64, error)
}

// Containers starts, watches and removes containers.
type Containers interface {
	// Start returns the container's id even when starting it fails.
	Start(ctx context.Context, s engine.ContainerSpec) (string, error)
	RemoveContainer(ctx context.Context, id string) error
	State(ctx context.Context, id string) (engine.State, error)
	Logs(ctx context.Context, id string, n int) (string, error)
	Exec(ctx context.Context, id string, cmd []string) (engine.ExecResult, error)
	// SetCPUs moves a running container to other cores; CPUs reads back
	// where the engine says it runs.
	SetCPUs(ctx context.Context, id, cpus string) error
	CPUs(ctx context.Context, id string) (string, error)
}

// Stats samples what a container uses.
type Stats interface {
	Sample(ctx context.Context, id string) engine.Sampler
}

// Host is the engine itself: what it is, whether it answers, its
// networks, and what runs on it.
type Host interface {
	Info(ctx context.Context) (engine.Info, error)
	// Ping checks that the engine still answers; its error names the engine.
	Ping(ctx context.Context) error
	// Reap removes what dead runs left (every labelled object when all).
	Reap(ctx context.Context, all bool) ([]string, error)
	// RunningContainers lists what runs on the engine, to warn of
	// containers that share the run's cores.
	RunningContainers(ctx context.Context) ([]engine.Running, error)
	CreateNetwork(ctx context.Context, name string, labels map[string]string) (string, error)
	RemoveNetwork(ctx context.Context, id string) error
	NetworkExists(ctx context.Context, id string) (bool, error)
}
