// Package wire is what the load generator image's own commands (the probe,
// the open-loop generator) share about the wire.
package wire

import (
	"net"
	"sync/atomic"
)

// CountingConn counts into N the bytes read from a connection: the bytes
// on the wire, headers included, which the harness holds answers to.
type CountingConn struct {
	net.Conn
	N *atomic.Int64
}

func (c CountingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.N.Add(int64(n))
	return n, err
}
