package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/connhelper"
	dcontext "github.com/docker/cli/cli/context/docker"
	"github.com/docker/cli/cli/context/store"
	"github.com/moby/moby/client"

	"github.com/webbench/webbench/harness/internal/redact"
)

// IsURL reports whether spec names an engine by URL rather than by a
// Docker context name.
func IsURL(spec string) bool { return strings.Contains(spec, "://") }

// Dial connects to the engine given the way the docker CLI accepts one,
// negotiating the API version down to what it speaks:
//   - "": the environment's engine, as Connect;
//   - a URL: unix:// and npipe:// sockets, tcp:// (with TLS from
//     DOCKER_TLS_VERIFY and DOCKER_CERT_PATH, as the CLI), ssh://user@host
//     through the docker CLI's connection helper (ssh runs `docker system
//     dial-stdio` on the remote machine);
//   - a context name, resolved from the Docker config folder ($DOCKER_CONFIG
//     or ~/.docker) with its TLS material, as `docker --context NAME`;
//     "default" is the environment's engine.
//
// name is how errors call the engine (a matrix's engines key).
func Dial(ctx context.Context, name, spec string) (*Engine, error) {
	shown := spec
	if shown == "" || shown == "default" {
		if shown = os.Getenv("DOCKER_HOST"); shown == "" {
			shown = client.DefaultDockerHost
		}
	}
	opts, err := clientOpts(spec)
	if err != nil {
		return nil, fmt.Errorf("engine %s (%s): %w", name, redact.URL(shown), err)
	}
	cli, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("engine %s (%s): docker client: %w", name, redact.URL(shown), err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("engine %s (%s) not reachable: %w", name, redact.URL(shown), err)
	}
	return &Engine{cli: cli, Name: name, Spec: spec}, nil
}

func clientOpts(spec string) ([]client.Opt, error) {
	if spec == "" || spec == "default" {
		// The CLI dials DOCKER_HOST=ssh://… through its connection
		// helper; the SDK's FromEnv would take it for a TCP host name.
		if h := os.Getenv("DOCKER_HOST"); strings.HasPrefix(h, "ssh://") {
			spec = h
		}
	}
	switch {
	case spec == "" || spec == "default":
		return []client.Opt{client.FromEnv}, nil
	case IsURL(spec):
		helper, err := connhelper.GetConnectionHelper(spec)
		if err != nil {
			return nil, err
		}
		if helper != nil { // ssh://
			return []client.Opt{client.WithHost(helper.Host), client.WithDialContext(helper.Dialer)}, nil
		}
		// FromEnv brings DOCKER_TLS_VERIFY/DOCKER_CERT_PATH's TLS; the URL
		// given replaces DOCKER_HOST.
		return []client.Opt{client.FromEnv, client.WithHost(spec)}, nil
	}
	s, epMeta, err := contextEndpoint(spec)
	if err != nil {
		return nil, err
	}
	ep, err := dcontext.WithTLSData(s, spec, epMeta)
	if err != nil {
		return nil, fmt.Errorf("docker context %q: TLS material: %w", spec, err)
	}
	return ep.ClientOpts()
}

// contextEndpoint reads a context's docker endpoint from the Docker
// config folder's context store, as the CLI reads it.
func contextEndpoint(name string) (store.Store, dcontext.EndpointMeta, error) {
	dir := contextStoreDir()
	s := store.New(dir, store.NewConfig(
		func() any { return &map[string]any{} },
		store.EndpointTypeGetter(dcontext.DockerEndpoint, func() any { return &dcontext.EndpointMeta{} }),
	))
	meta, err := s.GetMetadata(name)
	if err != nil {
		return nil, dcontext.EndpointMeta{}, fmt.Errorf("docker context %q (in %s): %w", name, dir, err)
	}
	ep, err := dcontext.EndpointFromContext(meta)
	if err != nil {
		return nil, dcontext.EndpointMeta{}, fmt.Errorf("docker context %q: %w", name, err)
	}
	return s, ep, nil
}

// contextStoreDir is the context store of the Docker config folder as
// DOCKER_CONFIG says now: the CLI's config.Dir reads it once per process.
func contextStoreDir() string {
	if dir := os.Getenv(config.EnvOverrideConfigDir); dir != "" {
		return filepath.Join(dir, "contexts")
	}
	return config.ContextStoreDir()
}

// ContextHost is the URL a Docker context's docker endpoint names
// (ssh://bench@10.0.0.5, tcp://…, unix://…), read from the context store
// as the CLI reads it: where a context's machine is, for a default
// address the load generator reaches it at.
func ContextHost(name string) (string, error) {
	_, ep, err := contextEndpoint(name)
	if err != nil {
		return "", err
	}
	return ep.Host, nil
}

// Host is what the client talks to: the URL or context it was given, or
// the environment's DOCKER_HOST (the platform's default socket when unset).
func (e *Engine) Host() string {
	if e.Spec != "" && e.Spec != "default" {
		return redact.URL(e.Spec)
	}
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return redact.URL(h)
	}
	return client.DefaultDockerHost
}

// Ping checks that the engine still answers; the error names it.
func (e *Engine) Ping(ctx context.Context) error {
	if _, err := e.cli.Ping(ctx, client.PingOptions{}); err != nil {
		return fmt.Errorf("engine %s (%s) lost: %w", e.label(), e.Host(), err)
	}
	return nil
}

func (e *Engine) label() string {
	if e.Name == "" {
		return "default"
	}
	return e.Name
}

// CopyImage copies image ref from src to e, streamed as `docker save |
// docker load` would: how a stand-in built on one engine reaches another
// that has no registry to pull from.
func (e *Engine) CopyImage(ctx context.Context, src *Engine, ref string) error {
	rc, err := src.cli.ImageSave(ctx, []string{ref})
	if err != nil {
		return fmt.Errorf("save %s on engine %s: %w", ref, src.label(), err)
	}
	defer rc.Close()
	resp, err := e.cli.ImageLoad(ctx, rc, client.ImageLoadWithQuiet(true))
	if err != nil {
		return fmt.Errorf("load %s on engine %s: %w", ref, e.label(), err)
	}
	defer resp.Close()
	if err := readMessages(resp, io.Discard); err != nil {
		return fmt.Errorf("load %s on engine %s: %w", ref, e.label(), err)
	}
	return e.tagAsOn(ctx, src, ref)
}

// tagAsOn gives image id, copied from src, the tags it has there: an
// image saved by its id arrives untagged, and a later run's reap would
// take it for a dangling one of earlier builds and remove it (to be
// copied again). A ref that is a name brought its tag with it.
func (e *Engine) tagAsOn(ctx context.Context, src *Engine, id string) error {
	if !strings.HasPrefix(id, "sha256:") {
		return nil
	}
	ins, err := src.cli.ImageInspect(ctx, id)
	if err != nil {
		return fmt.Errorf("inspect %s on engine %s: %w", id, src.label(), err)
	}
	for _, tag := range ins.RepoTags {
		if _, err := e.cli.ImageTag(ctx, client.ImageTagOptions{Source: id, Target: tag}); err != nil {
			return fmt.Errorf("tag %s as %s on engine %s: %w", id, tag, e.label(), err)
		}
	}
	return nil
}
