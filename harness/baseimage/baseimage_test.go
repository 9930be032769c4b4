package baseimage

import "testing"

func TestStandInRef(t *testing.T) {
	for in, want := range map[string]string{
		"debian:bookworm-slim":             "webbench-standin/debian:bookworm-slim",
		"golang:1.26-bookworm":             "webbench-standin/golang:1.26-bookworm",
		"mcr.microsoft.com/dotnet/sdk:8.0": "webbench-standin/sdk:8.0",
		"localhost:5000/node":              "webbench-standin/node:latest",
	} {
		if got := StandInRef(in); got != want {
			t.Errorf("StandInRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDebianSuite(t *testing.T) {
	for in, want := range map[string]string{"debian:bookworm-slim": "bookworm", "golang:1.26-bookworm": "bookworm", "debian:trixie": "trixie"} {
		if got, err := debianSuite(in); err != nil || got != want {
			t.Errorf("debianSuite(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := debianSuite("alpine:3.20"); err == nil {
		t.Error("alpine accepted as a Debian suite")
	}
}
