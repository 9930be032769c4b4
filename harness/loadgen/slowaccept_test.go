package loadgen

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// slowAccepting is a listener with a listen backlog of 5 that takes 60 ms
// per accept, as Python's http.server accepts: of many clients connecting
// at once, some have their SYNs dropped and retried a second later.
type slowAccepting struct{ net.Listener }

func (l slowAccepting) Accept() (net.Conn, error) {
	time.Sleep(60 * time.Millisecond)
	return l.Listener.Accept()
}

// slowAcceptServer serves "hello" on 127.0.0.1 behind a slowAccepting
// listener and returns its URL.
func slowAcceptServer(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 5); err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "backlog-5")
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) })}
	go srv.Serve(slowAccepting{l})
	t.Cleanup(func() { srv.Close() })
	return "http://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + "/"
}

// A 1 s warm-up by h2load ends against a server that accepts slowly: 16
// connections to a listen backlog of 5. With -D 1 h2load never exits
// there (clients still connecting when its window ends keep it waiting),
// so the warm-up runs at least H2loadMinTimed. A run still going after 30 s
// is killed and fails the test.
func TestH2loadWarmUpSlowAccept(t *testing.T) {
	if testing.Short() {
		t.Skip("runs h2load")
	}
	bin, err := exec.LookPath("h2load")
	if err != nil {
		t.Fatalf("h2load is not installed (make test-tools installs it): %v", err)
	}
	tool, s := WarmUp(H2load{}, Spec{URL: slowAcceptServer(t), Connections: 16, Timeout: 2 * time.Second, Expect: 200}, time.Second)
	cmd := tool.Command(s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, cmd[1:]...).Output()
	if ctx.Err() != nil {
		t.Fatalf("%v did not exit within 30 s against a backlog of 5", cmd)
	}
	if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	if res, err := tool.Parse(out, s); err != nil || res.Requests == 0 {
		t.Errorf("%v: %+v %v", cmd, res, err)
	}
}

// A warm-up is s for d, by bombardier when the cell's tool runs only a
// count (ab), and by h2load for at least H2loadMinTimed.
func TestWarmUp(t *testing.T) {
	s := Spec{URL: "http://t/", Connections: 16, Requests: 1000}
	if tool, w := WarmUp(Ab{}, s, time.Second); tool.Name() != "bombardier" || w.Duration != time.Second || w.Requests != 0 {
		t.Errorf("ab: %s %+v", tool.Name(), w)
	}
	if tool, w := WarmUp(H2load{}, s, time.Second); tool.Name() != "h2load" || w.Duration != H2loadMinTimed {
		t.Errorf("h2load 1 s: %s %+v", tool.Name(), w)
	}
	if _, w := WarmUp(H2load{}, s, 5*time.Second); w.Duration != 5*time.Second {
		t.Errorf("h2load 5 s: %+v", w)
	}
}
