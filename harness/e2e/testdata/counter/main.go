// Command server is a test target that tells a listener of the test how
// many answers it wrote: at start it connects to COUNT_TO (host:port), and
// before writing each answer it writes one byte there. The byte is on its
// way before the client can read the answer, so once the container is gone
// the bytes the test read are exactly the answers this server wrote, the
// harness's readiness and verification probes included. It answers every
// path with the plaintext scenario's answer.
package main

import (
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
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
	tick := []byte{1}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
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
