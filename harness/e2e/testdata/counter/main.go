// Command server is a test target that tells a listener of the test how
// many answers it wrote: at start it connects to COUNT_TO (host:port), and
// before writing each answer it writes one byte there. The byte is on its
// way before the client can read the answer, so once the container is gone
// the bytes the test read are exactly the answers this server wrote, the
// harness's readiness and verification probes included. It answers every
// path with the plaintext scenario's answer, after ANSWER_DELAY (a Go
// duration; none when unset), so that every latency a client measures is
// at least that.
package main

import (
	"cmp"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"time"
)

func main() {
	to := os.Getenv("COUNT_TO")
	if to == "" {
		log.Fatal("COUNT_TO: set it to host:port of the listener that counts the answers")
	}
	report, err := net.Dial("tcp", to)
	if err != nil {
		log.Fatalf("COUNT_TO %s: %v", to, err)
	}
	delay, err := time.ParseDuration(cmp.Or(os.Getenv("ANSWER_DELAY"), "0s"))
	if err != nil || delay < 0 {
		log.Fatalf("ANSWER_DELAY %q: want a duration such as 10ms (%v)", os.Getenv("ANSWER_DELAY"), err)
	}
	tick := []byte{1}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay) // before the count: an answer cut short is not counted
		// One Write of one byte: net.Conn serializes concurrent writes.
		if _, err := report.Write(tick); err != nil {
			log.Fatalf("COUNT_TO %s: %v", to, err)
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	log.Printf("runtime: %s", runtime.Version())
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
