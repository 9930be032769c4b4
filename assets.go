// Package webbench carries the files the harness builds into images itself:
// the load generator's recipe (with the go.mod that pins bombardier's
// version) and the recipes of the local stand-ins for base images. They are
// embedded so the harness binary is self-contained wherever it runs.
package webbench

import "embed"

// Assets holds go.mod, go.sum and the docker/ folder.
//
//go:embed go.mod go.sum docker
var Assets embed.FS
