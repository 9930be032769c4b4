//go:build !linux

package check

import (
	"context"
	"errors"
	"net"
)

type netns struct{}

var errNoNetns = errors.New("network namespaces are Linux's")

func canEnter() error                       { return errNoNetns }
func openNetns(int, string) (*netns, error) { return nil, errNoNetns }
func (*netns) Close() error                 { return nil }
func (*netns) do(func()) error              { return errNoNetns }
func (*netns) dial(context.Context, string, string) (net.Conn, error) {
	return nil, errNoNetns
}
