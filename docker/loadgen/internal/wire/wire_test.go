package wire

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// Every byte read through the connection is counted, across reads.
func TestCountingConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	var n atomic.Int64
	c := CountingConn{Conn: b, N: &n}
	go func() {
		a.Write([]byte("HTTP/1.1 200 OK\r\n"))
		a.Write([]byte("\r\nHello"))
		a.Close()
	}()
	got, err := io.ReadAll(c)
	if err != nil || n.Load() != int64(len(got)) || n.Load() != 24 {
		t.Errorf("read %d bytes (%v), counted %d; want 24", len(got), err, n.Load())
	}
}
