package runner

import (
	"context"

	"github.com/webbench/webbench/harness/baseimage"
	"github.com/webbench/webbench/harness/engine"
)

// Engine is what a run needs from a Docker engine, in the runner's terms;
// *engine.Engine is the real one. Unit tests drive the runner with a fake.
type Engine interface {
	baseimage.Engine // image look-up, pull, import and build
	Info(ctx context.Context) (engine.Info, error)
	// Reap removes what dead runs left (every labelled object when all).
	Reap(ctx context.Context, all bool) ([]string, error)
	CreateNetwork(ctx context.Context, name string, labels map[string]string) (string, error)
	RemoveNetwork(ctx context.Context, id string) error
	NetworkExists(ctx context.Context, id string) (bool, error)
	// Start returns the container's id even when starting it fails.
	Start(ctx context.Context, s engine.ContainerSpec) (string, error)
	RemoveContainer(ctx context.Context, id string) error
	State(ctx context.Context, id string) (engine.State, error)
	Logs(ctx context.Context, id string, n int) (string, error)
	Exec(ctx context.Context, id string, cmd []string) (engine.ExecResult, error)
	Sample(ctx context.Context, id string) engine.Sampler
	// Cached says whether Build would build nothing.
	Cached(ctx context.Context, s engine.BuildSpec) (bool, error)
	// RunningContainers lists what runs on the engine, to warn of
	// containers that share the run's cores.
	RunningContainers(ctx context.Context) ([]engine.Running, error)
	// Ping checks that the engine still answers; its error names the engine.
	Ping(ctx context.Context) error
	// ImageSize is an image's size in bytes, its layers included.
	ImageSize(ctx context.Context, ref string) (int64, error)
	// SetCPUs moves a running container to other cores; CPUs reads back
	// where the engine says it runs.
	SetCPUs(ctx context.Context, id, cpus string) error
	CPUs(ctx context.Context, id string) (string, error)
}

var _ Engine = (*engine.Engine)(nil)
